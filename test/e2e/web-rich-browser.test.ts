import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';

const skipped = skipBrowser('web-rich-browser', "the web chat's tables, code and math");

/** An answer with everything the page renders richly (SPEC §16 "Rendering"). */
const ANSWER = [
  'Energy is $E = mc^2$, and a price stays a price: $5 and $10.',
  '',
  '| Fruit | Qty |',
  '|:------|----:|',
  '| **Apple** | 3 |',
  '| Kiwi | 12 |',
  '',
  '```python',
  'def greet(name):',
  '    return f"hi {name}" if name else None',
  '```',
  '',
  '$$',
  '\\int_0^1 x\\,dx = \\frac{1}{2}',
  '$$',
].join('\n');

/** The browser's getComputedStyle (this file is typed without the DOM's types). */
type Computed = { getComputedStyle(element: unknown): Record<string, string> };

/** A computed style of the element `locator` finds. */
const styleOf = (locator: Locator, property: 'color' | 'textAlign') =>
  locator.evaluate((e, p) => (globalThis as unknown as Computed).getComputedStyle(e)[p]!, property);

describe.skipIf(skipped)('the web chat renders tables, code and math in a real browser', () => {
  const web = chatInBrowser(
    { SATCHEL_PACKS: fixturePacks(['alpha']), BATCH_WINDOW_MS: '0' },
    { context: { permissions: ['clipboard-read', 'clipboard-write'] } },
  );
  const { h } = web;

  it.skipIf(!haveChromium)(
    'shows a real table, labelled and highlighted code that copies, and typeset math, loading nothing from outside',
    async () => {
      const urls: URL[] = [];
      web.browser.context.on('request', (r) => urls.push(new URL(r.url())));
      const { page, problems, log } = await web.open();
      const box = page.getByLabel('Message');

      // Plain text needs none of it: the highlighter and the math are not fetched.
      h.model.enqueue({ text: 'Plain words only.' });
      await box.fill('plain');
      await box.press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toContain('Plain words only.');
      expect(urls.filter((u) => u.pathname.startsWith('/chat/rich'))).toEqual([]);

      h.model.enqueue({ text: ANSWER, chunks: 4, chunkDelayMs: 100 });
      await box.fill('show me');
      await box.press('Enter');
      const answer = log.locator('.bubble.bot:not(.live)').last();
      await expect.poll(() => answer.locator('math').count(), { timeout: 10_000 }).toBe(2);

      // The table: a header row and two rows, cells with their marks and alignment.
      const table = answer.getByRole('table');
      expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Fruit', 'Qty']);
      expect(await table.getByRole('row').count()).toBe(3);
      expect(await table.locator('td b').textContent()).toBe('Apple');
      expect(await styleOf(table.locator('td').nth(1), 'textAlign')).toBe('right');
      expect(await answer.locator('pre').count()).toBe(1);

      // The code: its language over it, its words coloured by kind, and a Copy button.
      const code = answer.locator('.code-block');
      expect(await code.locator('.lang').textContent()).toBe('python');
      expect(await code.locator('.hljs-keyword').first().textContent()).toBe('def');
      expect(await code.locator('.hljs-string').count()).toBeGreaterThan(0);
      const keyword = await styleOf(code.locator('.hljs-keyword').first(), 'color');
      expect(keyword).not.toBe(await styleOf(code.locator('pre'), 'color'));
      await code.getByRole('button', { name: 'Copy the python code' }).click();
      await expect.poll(() => code.locator('.copy').textContent()).toBe('Copied');
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
        'def greet(name):\n    return f"hi {name}" if name else None',
      );

      // The math: MathML, inline in the sentence and a block of its own; prices stay text.
      const inline = answer.locator('span[data-math="inline"] math');
      expect(await inline.getAttribute('display')).not.toBe('block');
      expect(await inline.locator('msup').count()).toBe(1);
      expect(await answer.locator('span[data-math="display"] math').getAttribute('display')).toBe(
        'block',
      );
      expect(await answer.locator('mfrac').count()).toBe(1);
      expect(await answer.textContent()).toContain('a price stays a price: $5 and $10.');

      // A reload renders it all again from the history.
      await page.reload();
      await page.locator('#status', { hasText: /^Connected$/ }).waitFor();
      const again = log.locator('.bubble.bot').last();
      await expect.poll(() => again.locator('math').count(), { timeout: 10_000 }).toBe(2);
      expect(await again.locator('.hljs-keyword').count()).toBeGreaterThan(0);
      expect(await again.getByRole('table').count()).toBe(1);

      expect(grave(await axeViolations(page))).toEqual([]);
      // Everything came from satchel itself; the CSP refused nothing (a refusal is a console error).
      const paths = urls.map((u) => u.pathname);
      expect(paths).toContain('/chat/rich.js');
      expect(paths).toContain('/chat/rich.css');
      expect(urls.filter((u) => u.hostname !== '127.0.0.1')).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
