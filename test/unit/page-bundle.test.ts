import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRichPage } from '../../scripts/page-bundle.ts';

describe("the web chat's rich rendering bundle", () => {
  it('is committed as scripts/build-page.ts builds it from src/web/page-rich and the libraries', async () => {
    const built = await buildRichPage();
    for (const [name, text] of Object.entries(built)) {
      const committed = readFileSync(
        new URL(`../../src/web/page/${name}`, import.meta.url),
        'utf8',
      );
      // Not toBe: a 300 KB diff helps nobody. Run `npx tsx scripts/build-page.ts`.
      expect(committed === text, `src/web/page/${name} is stale: run scripts/build-page.ts`).toBe(
        true,
      );
    }
    // Nothing in it names another host to load from (its licence comments name their sites).
    const code = built['rich.js'].replace(/\/\*![\s\S]*?\*\//g, '');
    expect(code).not.toMatch(/\b(src|href)\s*=\s*["']https?:/);
    expect(built['rich.css']).not.toMatch(/url\((?!["']?data:|%23)/);
    expect(built['rich.css']).not.toMatch(/@font-face/);
  }, 30_000);
});
