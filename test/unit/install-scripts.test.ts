import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

/** npm 12 runs a dependency's install script only when package.json approves it. */
describe('install scripts under npm 12', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));

  it('approves the SQLite driver build, without which npm start cannot open a database', () => {
    expect(withScripts).toContain('better-sqlite3');
    expect(manifest.allowScripts?.['better-sqlite3']).toBe(true);
  });

  it('decides on every dependency that has an install script', () => {
    const undecided = [...new Set(withScripts)].filter(
      (name) => typeof manifest.allowScripts?.[name] !== 'boolean',
    );
    expect(undecided).toEqual([]);
  });
});
