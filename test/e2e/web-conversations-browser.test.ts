/**
 * Conversations in a real browser (SPEC §16): two bound to different packs, each still
 * itself, its messages shown, after a reload and a restart; the list as a drawer at 390 px;
 * rename by keyboard.
 * Self-contained for now (the shared Chromium rig is being built beside it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChromiumSession,
  haveChromium,
  launchChromium,
  skipBrowser,
  watchProblems,
} from '../support/chromium.ts';
import { fixturePacks, type Harness, startHarness } from '../support/harness.ts';

const skipped = skipBrowser('web-conversations-browser', 'the web conversations');

describe.skipIf(skipped || !haveChromium)('web conversations in a real browser', () => {
  let h: Harness;
  let browser: ChromiumSession | undefined;
  const printed: string[] = [];
  const chatUrl = () =>
    printed.findLast((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;

  beforeAll(async () => {
    h = await startHarness(
      { SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) },
      { app: { announce: (line) => printed.push(line) } },
    );
    browser = await launchChromium({ viewport: { width: 1100, height: 700 }, locale: 'en-US' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('keeps two conversations bound to different packs across a reload and a restart', async () => {
    const page = await browser!.context.newPage();
    const problems = watchProblems(page);
    await page.goto(chatUrl());
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    const log = page.getByRole('log');
    const list = page.getByRole('navigation', { name: 'Conversations' });

    // The first conversation: Beta, from its first screen.
    await log.getByRole('button', { name: /Beta Books/ }).click();
    await expect
      .poll(() => log.textContent(), { timeout: 10_000 })
      .toContain('Now using Beta Books.');
    await page.getByLabel('Message').fill('I am reading Dune');
    await page.keyboard.press('Enter');
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain('— Beta Books');
    const opened = () => decodeURIComponent(new URL(page.url()).hash.slice(1));
    await expect.poll(opened).toMatch(/^w-[0-9a-f]{16}$/);
    const books = opened();

    // A second one: Alpha.
    await list.getByRole('button', { name: 'New conversation' }).click();
    await expect.poll(() => new URL(page.url()).hash.slice(1)).not.toBe(books);
    await log.getByRole('button', { name: /Alpha Garden/ }).click();
    await expect
      .poll(() => log.textContent(), { timeout: 10_000 })
      .toContain('Now using Alpha Garden.');
    await page.getByLabel('Message').fill('my fern is Bob');
    await page.keyboard.press('Enter');
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain('— Alpha Garden');
    const garden = decodeURIComponent(new URL(page.url()).hash.slice(1));
    await expect
      .poll(() => list.getByRole('link').allTextContents())
      .toEqual(['my fern is Bob', 'I am reading Dune']);

    // A reload keeps the conversation open; the list selects the other.
    await page.reload();
    await expect
      .poll(() => log.textContent(), { timeout: 10_000 })
      .toContain('echo: my fern is Bob');
    await list.getByRole('link', { name: 'I am reading Dune' }).click();
    await expect
      .poll(() => log.textContent(), { timeout: 10_000 })
      .toContain('echo: I am reading Dune');
    expect(await log.textContent()).not.toContain('fern');

    expect(problems).toEqual([]);
    await page.close();

    // After a restart, each answers with its own pack. The port is new (port 0; the token is
    // kept): the owner opens the address printed now, naming the conversation.
    await h.restart();
    const after = await browser!.context.newPage();
    const afterProblems = watchProblems(after);
    await after.goto(`${chatUrl()}#${books}`);
    await expect.poll(() => after.locator('#status').textContent()).toBe('Connected');
    const afterLog = after.getByRole('log');
    const afterList = after.getByRole('navigation', { name: 'Conversations' });
    // It opens on what was said there before the restart: the line and its answer, once.
    const bubbles = () => afterLog.locator('.bubble').allTextContents();
    await expect.poll(bubbles).toEqual(['I am reading Dune', 'echo: I am reading Dune']);
    await after.reload();
    await expect.poll(() => after.locator('#status').textContent()).toBe('Connected');
    await expect.poll(bubbles).toEqual(['I am reading Dune', 'echo: I am reading Dune']);
    await after.getByLabel('Message').fill('what am I reading?');
    await after.keyboard.press('Enter');
    await expect.poll(() => afterLog.textContent(), { timeout: 10_000 }).toContain('— Beta Books');
    await afterList.getByRole('link', { name: 'my fern is Bob' }).click();
    await after.getByLabel('Message').fill('and my fern?');
    await after.keyboard.press('Enter');
    await expect
      .poll(() => afterLog.textContent(), { timeout: 10_000 })
      .toContain('— Alpha Garden');
    expect(decodeURIComponent(new URL(after.url()).hash.slice(1))).toBe(garden);
    expect(afterProblems).toEqual([]);
    await after.close();
  });

  it('keeps the list 240 px wide beside the chat, a long title cut short', async () => {
    const page = await browser!.context.newPage();
    await page.goto(chatUrl());
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    const list = page.getByRole('navigation', { name: 'Conversations' });
    await list.locator('[aria-current]').focus();
    await page.keyboard.press('F2');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(
      'Words from the café menu in Madrid, to practise before the trip in May',
    );
    await page.keyboard.press('Enter');
    const title = list.locator('[aria-current]');
    await expect.poll(() => title.textContent()).toContain('café menu in Madrid');
    expect((await list.boundingBox())!.width).toBe(240);
    expect((await page.locator('main').boundingBox())!.width).toBeGreaterThan(700);
    // Cut with an ellipsis, not wrapped: its whole text is wider than what shows.
    expect(await title.evaluate((a) => a.scrollWidth > a.clientWidth)).toBe(true);
    await page.close();
  });

  it('opens the list as a drawer at 390 px, and renames a conversation by keyboard', async () => {
    const page = await browser!.context.newPage();
    await page.setViewportSize({ width: 390, height: 760 });
    await page.goto(chatUrl());
    await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
    const list = page.getByRole('navigation', { name: 'Conversations' });
    expect(await list.isVisible()).toBe(false);
    const toggle = page.getByRole('button', { name: 'Conversations' });
    await toggle.click();
    expect(await list.isVisible()).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');

    // Rename the open one: F2 on it, type, Enter.
    await list.locator('[aria-current]').focus();
    await page.keyboard.press('F2');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Garden plans');
    await page.keyboard.press('Enter');
    await expect.poll(() => list.locator('[aria-current]').textContent()).toBe('Garden plans');
    expect(
      await list
        .locator('[aria-current]')
        .evaluate((el) => el === el.ownerDocument.activeElement && el.textContent),
    ).toBe('Garden plans');
    // Escape closes the drawer.
    await page.keyboard.press('Escape');
    expect(await list.isVisible()).toBe(false);
    const listed = await fetch(new URL('/chat/conversations', chatUrl()), {
      headers: {
        cookie: (await browser!.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
      },
    });
    expect(JSON.stringify(await listed.json())).toContain('Garden plans');
    await page.close();
  });
});
