/**
 * Managing conversations in a real browser (SPEC §16): pin one (first in the list, also
 * after a reload), search titles and messages from the search box, export one as Markdown
 * and JSON (downloads), delete one with Undo and then for good, the page saying what was
 * removed; axe-core finds nothing serious on the new controls.
 */
import { text } from 'node:stream/consumers';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgesOf } from '../../src/edges.ts';
import { telegram } from '../../src/telegram/edge.ts';
import { web, webEdge } from '../../src/web/edge.ts';
import { axeViolations, grave } from '../support/axe.ts';
import {
  type ChromiumSession,
  haveChromium,
  launchChromium,
  skipBrowser,
  watchProblems,
} from '../support/chromium.ts';
import { fixturePacks, type Harness, startHarness } from '../support/harness.ts';

/** What a download holds (read through Playwright: the browser may run elsewhere). */
const downloaded = async (download: Download) => text(await download.createReadStream());

const skipped = skipBrowser('web-conversation-manage-browser', 'managing web conversations');
/**
 * A short undo, so the test sees it lapse; long enough that the Undo is pressed inside it on
 * a loaded machine (nothing slow, such as an accessibility scan, runs before the press).
 */
const UNDO_MS = 4000;

describe.skipIf(skipped || !haveChromium)('managing web conversations in a browser', () => {
  let h: Harness;
  let browser: ChromiumSession | undefined;
  const printed: string[] = [];
  const chatUrl = () =>
    printed.findLast((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;

  beforeAll(async () => {
    h = await startHarness(
      { SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) },
      {
        app: {
          announce: (line) => printed.push(line),
          edges: (config) =>
            edgesOf(config, [telegram, { ...web, create: (c) => webEdge(c, { undoMs: UNDO_MS }) }]),
        },
      },
    );
    browser = await launchChromium({
      viewport: { width: 1100, height: 700 },
      locale: 'en-US',
      acceptDownloads: true,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** Picks `pack` on the open conversation's first screen and says `text`. */
  async function talk(page: Page, pack: RegExp, text: string, sign: string) {
    const log = page.getByRole('log');
    await log.getByRole('button', { name: pack }).click();
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain('Now using');
    await page.getByLabel('Message').fill(text);
    await page.keyboard.press('Enter');
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain(sign);
  }

  it('pins, searches, exports and deletes with undo', async () => {
    const page = await browser!.context.newPage();
    const problems = watchProblems(page);
    await page.goto(chatUrl());
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    const list = page.getByRole('navigation', { name: 'Conversations' });
    const titles = () => list.getByRole('link').allTextContents();

    await talk(page, /Alpha Garden/, 'tomatoes need sun', '— Alpha Garden');
    await list.getByRole('button', { name: 'New conversation' }).click();
    await talk(page, /Beta Books/, 'I am reading Dune', '— Beta Books');
    await expect.poll(titles).toEqual(['I am reading Dune', 'tomatoes need sun']);

    // Pinned: first, and still after a reload.
    const pin = list.getByRole('button', { name: 'Pin “tomatoes need sun”' });
    expect(await pin.getAttribute('aria-pressed')).toBe('false');
    await pin.click();
    await expect.poll(titles).toEqual(['tomatoes need sun', 'I am reading Dune']);
    await page.reload();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    await expect.poll(titles).toEqual(['tomatoes need sun', 'I am reading Dune']);
    expect(
      await list
        .getByRole('button', { name: 'Pin “tomatoes need sun”' })
        .getAttribute('aria-pressed'),
    ).toBe('true');

    // Search: a title's word, then a word only an answer holds; Escape shows all again.
    const search = page.getByRole('searchbox', { name: 'Search conversations' });
    expect(await search.getAttribute('id')).toBe('search');
    await search.fill('dune');
    await expect.poll(titles).toEqual(['I am reading Dune']);
    await search.fill('echo sun');
    // Found by its answer: the words around, the word found in [brackets].
    await expect
      .poll(titles)
      .toEqual([expect.stringMatching(/^tomatoes need sun\[echo\]: tomatoes need \[sun\]$/)]);
    await search.press('Escape');
    await expect.poll(titles).toEqual(['tomatoes need sun', 'I am reading Dune']);

    // Export: two downloads, named by the title.
    await list.getByLabel('More for “I am reading Dune”').click();
    expect(grave(await axeViolations(page))).toEqual([]);
    const [md] = await Promise.all([
      page.waitForEvent('download'),
      list.getByRole('button', { name: 'Export as Markdown' }).click(),
    ]);
    expect(md.suggestedFilename()).toBe('I-am-reading-Dune.md');
    const markdown = await downloaded(md);
    expect(markdown).toMatch(/^# I am reading Dune\n/);
    expect(markdown).toContain('echo: I am reading Dune');
    await list.getByLabel('More for “I am reading Dune”').click();
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      list.getByRole('button', { name: 'Export as JSON' }).click(),
    ]);
    expect(json.suggestedFilename()).toBe('I-am-reading-Dune.json');
    const exported = JSON.parse(await downloaded(json));
    expect(exported.messages.map((m: { text: string }) => m.text)).toContain('I am reading Dune');

    // Delete, undo: back in the list.
    const deleted = page.locator('#deleted');
    await list.getByLabel('More for “I am reading Dune”').click();
    await list.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => deleted.textContent()).toBe('Deleted “I am reading Dune”. Undo');
    await expect.poll(titles).toEqual(['tomatoes need sun']);
    await deleted.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(titles).toEqual(['tomatoes need sun', 'I am reading Dune']);
    expect(await deleted.isHidden()).toBe(true);

    // Delete for good: the page says what went. The scan may run past the undo's end: what
    // it sees then is the line saying what was removed, which must pass as well.
    await list.getByLabel('More for “I am reading Dune”').click();
    await list.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => deleted.textContent()).toMatch(/^Deleted “I am reading Dune”/);
    expect(grave(await axeViolations(page))).toEqual([]);
    await expect
      .poll(() => deleted.textContent(), { timeout: 10_000 })
      .toBe('Deleted “I am reading Dune”: 2 messages, 0 uploads and 0 jobs removed.');
    await page.reload();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    await expect.poll(titles).toEqual(['tomatoes need sun']);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the title the model wrote after the first exchange', async () => {
    const page = await browser!.context.newPage();
    const problems = watchProblems(page);
    await page.goto(chatUrl());
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    const list = page.getByRole('navigation', { name: 'Conversations' });
    await list.getByRole('button', { name: 'New conversation' }).click();
    h.model.enqueueTitle({ text: 'Lima and the Andes' });
    await talk(page, /Alpha Garden/, 'what is the capital of Peru?', '— Alpha Garden');
    // The first line names it at once; the model's title replaces it, without a reload.
    await expect
      .poll(() => list.locator('[aria-current]').textContent(), { timeout: 10_000 })
      .toBe('Lima and the Andes');
    expect(problems).toEqual([]);
    await page.close();
  });
});
