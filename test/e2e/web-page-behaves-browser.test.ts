/**
 * The web chat's page behaves as a chat people use every day (SPEC §16 "The page behaves"),
 * in a real Chromium: it follows the newest text unless the owner scrolled up, then offers
 * "Jump to latest" (also after a photo, whose size is known only once it loads); the box
 * grows with its text; the header and the page title name the conversation and its pack (on
 * a 390 px phone too); Ctrl+Shift+O makes a new conversation and Ctrl+K reaches the search
 * when the page has one.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';

const skipped = skipBrowser('web-page-behaves-browser', 'how the web chat page behaves');

/** An answer taller than the log: 40 numbered lines. */
const tall = (label: string) =>
  Array.from({ length: 40 }, (_, i) => `${label} line ${i + 1}`).join('\n\n');

/** How far (px) the log's bottom is below what it shows. */
const below = (log: Locator) =>
  log.evaluate(
    (e: { scrollHeight: number; scrollTop: number; clientHeight: number }) =>
      e.scrollHeight - e.scrollTop - e.clientHeight,
  );

describe.skipIf(skipped)('the web chat page behaves, in a real browser', () => {
  const web = chatInBrowser({ SATCHEL_PACKS: fixturePacks(['alpha']), BATCH_WINDOW_MS: '0' });
  const { h } = web;

  async function say(page: Page, log: Locator, text: string, answer: string) {
    const answers = await log.locator('.bubble.bot:not(.live)').count();
    h.model.enqueue({ text: answer });
    await page.getByLabel('Message').fill(text);
    await page.getByLabel('Message').press('Enter');
    await expect
      .poll(() => log.locator('.bubble.bot:not(.live)').count(), { timeout: 10_000 })
      .toBe(answers + 1);
  }

  it.skipIf(!haveChromium)(
    'follows the newest text, stays where the owner scrolled up and offers to jump back; a photo does not stop it following',
    async () => {
      const { page, problems, log } = await web.open();
      const jump = page.getByRole('button', { name: 'Jump to latest' });
      await say(page, log, 'first', tall('one'));
      await say(page, log, 'second', tall('two'));
      expect(await below(log)).toBeLessThanOrEqual(48);
      expect(await jump.isHidden()).toBe(true);

      // The owner scrolls up to read: the next answer does not pull them down.
      const composerTop = () =>
        page
          .locator('#composer')
          .evaluate(
            (e: { getBoundingClientRect(): { top: number } }) => e.getBoundingClientRect().top,
          );
      const top = await composerTop();
      await log.evaluate((e: { scrollTop: number }) => {
        e.scrollTop = 200;
      });
      await expect.poll(() => jump.isVisible()).toBe(true);
      // Over the log: showing it moves nothing else.
      expect(await composerTop()).toBe(top);
      h.model.enqueue({ text: tall('three'), chunks: 4, chunkDelayMs: 50 });
      await page.evaluate(`fetch('/chat/send', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'third' }) })`);
      await expect
        .poll(() => log.locator('.bubble.bot:not(.live)').last().textContent(), {
          timeout: 10_000,
        })
        .toContain('three line 40');
      expect(await log.evaluate((e: { scrollTop: number }) => e.scrollTop)).toBe(200);
      expect(await jump.isVisible()).toBe(true);
      expect(grave(await axeViolations(page))).toEqual([]);

      // "Jump to latest" goes to the bottom, and the log follows again.
      await jump.click();
      expect(await below(log)).toBeLessThanOrEqual(48);
      expect(await jump.isHidden()).toBe(true);

      // A tall photo: its size is known only once it loads; the answer after it is in view.
      const png = await page.evaluate<string>(`(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 200;
        canvas.height = 400;
        const context = canvas.getContext('2d');
        context.fillStyle = '#2a9d3f';
        context.fillRect(0, 0, 200, 400);
        return canvas.toDataURL('image/png').split(',')[1];
      })()`);
      h.model.enqueue({ text: tall('photo'), chunks: 3, chunkDelayMs: 100 });
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Attach files' }).click();
      await (await chooser).setFiles({
        name: 'fern.png',
        mimeType: 'image/png',
        buffer: Buffer.from(png, 'base64'),
      });
      await page.getByLabel('Message').fill('what is this?');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect
        .poll(() => log.locator('.bubble.bot:not(.live)').last().textContent(), {
          timeout: 10_000,
        })
        .toContain('photo line 40');
      await expect
        .poll(() =>
          log
            .getByRole('img', { name: 'Photo you sent' })
            .evaluate((img: { complete: boolean }) => img.complete),
        )
        .toBe(true);
      await expect.poll(() => below(log)).toBeLessThanOrEqual(48);
      expect(await jump.isHidden()).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    "opens a new conversation's first screen at its top, and follows again once it starts",
    async () => {
      const { page, problems, log } = await web.open();
      await say(page, log, 'first', tall('one'));
      // Short enough that the first screen (the packs, then the commands) must scroll.
      await page.setViewportSize({ width: 900, height: 420 });
      await page.getByRole('button', { name: 'New conversation' }).click();
      const start = page.getByRole('region', { name: 'Start here' });
      await start.waitFor();
      await expect.poll(() => log.evaluate((e: { scrollTop: number }) => e.scrollTop)).toBe(0);
      expect(await below(log)).toBeGreaterThan(48);
      expect(await start.getByRole('button', { name: /Alpha Garden/ }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Jump to latest' }).isHidden()).toBe(true);

      await say(page, log, 'second', tall('two'));
      expect(await below(log)).toBeLessThanOrEqual(48);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'grows the box with its text up to a limit, and back after sending',
    async () => {
      const { page, problems, log } = await web.open();
      const box = page.getByLabel('Message');
      const height = () => box.evaluate((e: { offsetHeight: number }) => e.offsetHeight);
      const empty = await height();
      await box.fill(Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join('\n'));
      const eight = await height();
      expect(eight).toBeGreaterThan(empty * 2);
      // All eight lines show: nothing to scroll inside the box.
      expect(
        await box.evaluate(
          (e: { scrollHeight: number; clientHeight: number }) => e.scrollHeight - e.clientHeight,
        ),
      ).toBeLessThanOrEqual(1);
      await box.fill(Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join('\n'));
      expect(await height()).toBeLessThanOrEqual(0.4 * 700 + 1);
      h.model.enqueue({ text: 'Got all of it.' });
      await box.press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toContain('Got all of it.');
      expect(await height()).toBe(empty);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'names the conversation and its pack in the header and the title, on a phone too; shortcuts make a conversation and reach the search',
    async () => {
      const { page, problems, log } = await web.open();
      await page.getByRole('button', { name: 'New conversation' }).click();
      await expect.poll(() => page.title()).toBe('New conversation · Alpha Garden · satchel');
      await say(page, log, 'Fern care tips', 'Water weekly.');
      await expect.poll(() => page.title()).toBe('Fern care tips · Alpha Garden · satchel');
      const where = page.locator('#where');
      expect(await where.locator('.title').textContent()).toBe('Fern care tips');
      expect(await where.locator('.pack').textContent()).toBe('Alpha Garden');

      // A rename shows in the header and the title at once.
      await page.getByRole('button', { name: 'Rename “Fern care tips”' }).click();
      await page.getByLabel('Conversation title').fill('Ferns');
      await page.getByLabel('Conversation title').press('Enter');
      await expect.poll(() => page.title()).toBe('Ferns · Alpha Garden · satchel');
      expect(await where.locator('.title').textContent()).toBe('Ferns');

      // On a 390 px phone the header names them too, whole within the screen, and the model
      // picker and the usage link get a row of their own under them: nothing overlaps.
      h.model.setModels('openai', ['gpt-4.1-mini', 'gpt-4.1']);
      await page.setViewportSize({ width: 390, height: 800 });
      await page.reload();
      const picker = page.getByRole('combobox', { name: 'Model' });
      await picker.waitFor();
      await expect.poll(() => where.locator('.title').textContent()).toBe('Ferns');
      const boxes = [];
      for (const part of [
        where.locator('.title'),
        where.locator('.pack'),
        page.locator('#status'),
        picker,
        page.getByRole('link', { name: 'Usage & cost' }),
      ]) {
        expect(await part.isVisible()).toBe(true);
        const box = (await part.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390 - 16);
        boxes.push(box);
      }
      const [title, , status, pick, usage] = boxes;
      expect(title!.width).toBeGreaterThanOrEqual(40);
      expect(title!.x + title!.width).toBeLessThanOrEqual(status!.x);
      expect(pick!.y).toBeGreaterThanOrEqual(title!.y + title!.height);
      expect(pick!.x + pick!.width).toBeLessThanOrEqual(usage!.x);
      expect(pick!.width).toBeGreaterThanOrEqual(150);
      expect(grave(await axeViolations(page))).toEqual([]);
      await page.setViewportSize({ width: 900, height: 700 });

      // Ctrl+Shift+O: a new conversation, opened; Ctrl+K puts the keyboard in the search box.
      const listed = page.getByRole('navigation', { name: 'Conversations' }).getByRole('listitem');
      const before = await listed.count();
      await page.getByLabel('Message').focus();
      await page.keyboard.press('Control+Shift+O');
      await expect.poll(() => listed.count()).toBe(before + 1);
      await expect.poll(() => page.title()).toBe('New conversation · Alpha Garden · satchel');
      await page.keyboard.press('Control+K');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('search');
      expect(await page.getByRole('searchbox', { name: 'Search conversations' }).count()).toBe(1);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
