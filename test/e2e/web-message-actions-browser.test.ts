/**
 * Actions on messages in a real browser (SPEC §16): a failed answer keeps its error line with
 * Retry (also after a reload); regenerate, edit and resend and Retry replace the last
 * exchange in the session and its search index (the input stored once); copy an answer; a
 * time on each message, live and after a reload. axe-core stays clean on every new control.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { indexPending } from '../../src/store/search-index.ts';
import { userTexts } from '../fakes/model-requests.ts';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixtureWithTools } from '../support/harness.ts';

const skipped = skipBrowser('web-message-actions-browser', 'actions on web chat messages');

describe.skipIf(skipped)('actions on web chat messages', () => {
  const web = chatInBrowser(
    { SATCHEL_PACKS: fixtureWithTools('alpha', ['memory']), DEFAULT_PACK: 'alpha' },
    { context: { permissions: ['clipboard-read', 'clipboard-write'] } },
  );
  const { h } = web;

  /** A page on a new conversation of its own. */
  async function fresh() {
    const opened = await web.open();
    const before = opened.page.url();
    await opened.page.locator('#new-conversation').click();
    await expect.poll(() => opened.page.url()).not.toBe(before);
    await expect.poll(() => opened.page.locator('#status').textContent()).toBe('Connected');
    return opened;
  }

  async function say(page: Page, text: string) {
    await page.getByLabel('Message').fill(text);
    await page.getByLabel('Message').press('Enter');
  }

  /** Each bubble's words (its `.text`), in order. */
  const shown = async (page: Page) =>
    (await page.locator('#log .bubble[data-id] .text').allTextContents()).map((t) => t.trim());
  const stored = (role: string) =>
    h
      .rows<{ content: string }>('SELECT content FROM messages WHERE role = ? ORDER BY id', role)
      .map((r) => r.content);
  /** The index's rows for `word`, once what is stored is indexed (as every search does first). */
  const indexed = (word: string) => {
    indexPending(h.app.store.sqlite);
    return h.rows('SELECT rowid FROM messages_search WHERE messages_search MATCH ?', word).length;
  };
  const visibleActions = (page: Page) =>
    page.evaluate<string[]>(
      `[...document.querySelectorAll('#log [data-action]')].filter((b) => !b.hidden).map((b) => b.dataset.action)`,
    );

  it.skipIf(!haveChromium)(
    'keeps a failed answer with its error line and Retry after a reload; Retry answers it once',
    async () => {
      const { page, problems } = await fresh();
      h.model.failNext(1, 401);
      await say(page, 'what is the weather');
      const failed = page.locator('#log .bubble.bot.failed');
      await expect.poll(() => failed.count(), { timeout: 10_000 }).toBe(1);
      expect(await failed.locator('.text').textContent()).toContain('refused');
      await expect.poll(() => visibleActions(page)).toEqual(['edit', 'retry']);
      expect(grave(await axeViolations(page))).toEqual([]);

      await page.reload();
      await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
      await expect
        .poll(() => shown(page))
        .toEqual(['what is the weather', expect.stringContaining('refused')]);
      expect(await page.locator('#log .bubble.bot.failed').count()).toBe(1);
      await expect.poll(() => visibleActions(page)).toEqual(['edit', 'retry']);

      const calls = h.model.chatRequests().length;
      h.model.enqueue({ text: 'Sunny all day.' });
      await page.getByRole('button', { name: 'Retry' }).click();
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['what is the weather', 'Sunny all day.']);
      expect(await page.locator('#log .bubble.failed').count()).toBe(0);
      // The model read the question once: the failed turn's copy was taken back.
      const retried = h.model.chatRequests()[calls]!;
      expect(userTexts(retried).filter((t) => t.includes('what is the weather'))).toHaveLength(1);
      expect(stored('user').filter((t) => t === 'what is the weather')).toHaveLength(1);
      expect(h.rows('SELECT 1 FROM web_failures')).toEqual([]);
      // After a reload too: no failure line is left.
      await page.reload();
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['what is the weather', 'Sunny all day.']);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'shows a failure with the message it answers, above a line typed meanwhile, live and after a reload',
    async () => {
      const { page } = await fresh();
      // The refusal comes once the second line is typed (an event, not a fixed delay).
      let release = () => {};
      const typed = new Promise<void>((resolve) => (release = resolve));
      h.model.enqueue({ status: 401, until: typed });
      await say(page, 'first question');
      await expect.poll(() => page.locator('#working').count()).toBe(1);
      await say(page, 'second question');
      await expect
        .poll(() => page.locator('#log .bubble', { hasText: 'second question' }).count())
        .toBe(1);
      release();
      const order = [
        'first question',
        expect.stringContaining('refused'),
        'second question',
        'echo: second question',
      ];
      await expect.poll(() => shown(page), { timeout: 10_000 }).toEqual(order);
      // The last exchange is the second: Retry belongs to no other.
      await expect.poll(() => visibleActions(page)).toEqual(['edit', 'regenerate']);
      await page.reload();
      await expect.poll(() => shown(page), { timeout: 10_000 }).toEqual(order);
      expect(await page.locator('#log .bubble.failed').count()).toBe(1);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'regenerates the last answer: the old one leaves the history and the search index',
    async () => {
      const { page } = await fresh();
      h.model.enqueue({ text: 'Crimson, I would say.' });
      await say(page, 'name a colour');
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['name a colour', 'Crimson, I would say.']);
      expect(indexed('crimson')).toBe(1);
      await expect.poll(() => visibleActions(page)).toEqual(['edit', 'regenerate']);
      expect(grave(await axeViolations(page))).toEqual([]);

      const calls = h.model.chatRequests().length;
      h.model.enqueue({ text: 'Teal, this time.' });
      await page.getByRole('button', { name: 'Regenerate' }).click();
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['name a colour', 'Teal, this time.']);
      const request = h.model.chatRequests()[calls]!;
      expect(userTexts(request).filter((t) => t === 'name a colour')).toHaveLength(1);
      expect(JSON.stringify(request.body.messages)).not.toContain('Crimson');
      expect(stored('assistant').filter((t) => t.includes('Crimson'))).toEqual([]);
      expect(stored('user').filter((t) => t === 'name a colour')).toHaveLength(1);
      expect(indexed('crimson')).toBe(0);
      expect(indexed('teal')).toBe(1);
      expect(h.logs('web_redo').at(-1)).toMatchObject({ kind: 'regenerate', removed: 2 });
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'keeps what the tools of a regenerated answer wrote, and refuses to redo while an answer runs',
    async () => {
      const { page } = await fresh();
      const memory = () => readFileSync(path.join(h.home, 'packs', 'alpha', 'MEMORY.md'), 'utf8');
      h.model.enqueue(
        {
          toolCalls: [
            {
              name: 'memory',
              arguments: { action: 'append', file: 'MEMORY.md', text: 'owner grows sage' },
            },
          ],
        },
        { text: 'Noted: sage.' },
      );
      await say(page, 'remember that I grow sage');
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['remember that I grow sage', expect.stringMatching(/^Noted: sage\./)]);
      expect(memory()).toContain('owner grows sage');
      expect(h.rows("SELECT 1 FROM messages WHERE role = 'tool'")).toHaveLength(1);

      const calls = h.model.chatRequests().length;
      h.model.enqueue({ text: 'Sage is in your notes.' });
      await page.getByRole('button', { name: 'Regenerate' }).click();
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['remember that I grow sage', 'Sage is in your notes.']);
      // The tool's write stays (the model reads it in MEMORY.md); its call left the history.
      expect(memory().match(/owner grows sage/g)).toHaveLength(1);
      expect(h.rows("SELECT 1 FROM messages WHERE role = 'tool'")).toEqual([]);
      const request = JSON.stringify(h.model.chatRequests()[calls]!.body);
      expect(request).toContain('owner grows sage');
      expect(request).not.toContain('"tool_calls"');

      // While an answer is written, the last exchange is not taken back.
      h.model.enqueue({ text: 'one two three four five', trickle: true });
      await say(page, 'ramble');
      await expect.poll(() => page.locator('#log .live').count(), { timeout: 10_000 }).toBe(1);
      expect(await visibleActions(page)).toEqual([]);
      const refused = await page.evaluate<{ status: number; body: { error: string } }>(`
        fetch('/chat/regenerate', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ conversation: decodeURIComponent(location.hash.slice(1)) }),
        }).then(async (r) => ({ status: r.status, body: await r.json() }))`);
      expect(refused).toEqual({
        status: 409,
        body: { error: 'Wait for the answer, or stop it first.' },
      });
      await page.getByRole('button', { name: 'Stop' }).click();
      await expect.poll(() => shown(page), { timeout: 10_000 }).toContain('ramble');
      await expect
        .poll(() => visibleActions(page), { timeout: 10_000 })
        .toEqual(['edit', 'regenerate']);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    "edits and resends the owner's last message; the conversation goes on from it",
    async () => {
      const { page } = await fresh();
      h.model.enqueue({ text: 'Basil likes sun.' });
      await say(page, 'tell me about basil');
      await expect.poll(() => shown(page), { timeout: 10_000 }).toHaveLength(2);

      await page.getByRole('button', { name: 'Edit' }).click();
      const field = page.getByLabel('Edit message');
      expect(await field.inputValue()).toBe('tell me about basil');
      expect(grave(await axeViolations(page))).toEqual([]);
      // Escape cancels, leaving the message as it was.
      await field.press('Escape');
      expect(await page.getByLabel('Edit message').count()).toBe(0);
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Edit message').fill('tell me about mint');
      h.model.enqueue({ text: 'Mint spreads fast.' });
      await page.getByRole('button', { name: 'Send again' }).click();
      await expect
        .poll(() => shown(page), { timeout: 10_000 })
        .toEqual(['tell me about mint', 'Mint spreads fast.']);
      expect(stored('user').some((t) => t.includes('basil'))).toBe(false);
      expect(indexed('basil')).toBe(0);

      // The next message reads the edited exchange, not the first.
      const calls = h.model.chatRequests().length;
      h.model.enqueue({ text: 'In a pot, yes.' });
      await say(page, 'can it grow in a pot?');
      await expect.poll(() => shown(page), { timeout: 10_000 }).toHaveLength(4);
      const next = JSON.stringify(h.model.chatRequests()[calls]!.body.messages);
      expect(next).toContain('tell me about mint');
      expect(next).toContain('Mint spreads fast.');
      expect(next).not.toContain('basil');
      // Only the last exchange is offered again.
      await expect.poll(() => visibleActions(page)).toEqual(['edit', 'regenerate']);
      expect(
        await page.locator('#log .bubble.user').last().locator('[data-action="edit"]').isVisible(),
      ).toBe(true);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'copies an answer, and shows a time on each message, live and after a reload',
    async () => {
      const { page } = await fresh();
      h.model.enqueue({ text: 'Water **twice** a week.' });
      await say(page, 'how often?');
      await expect.poll(() => shown(page), { timeout: 10_000 }).toHaveLength(2);
      const answer = page.locator('#log .bubble.bot').last();
      await answer.getByRole('button', { name: 'Copy answer' }).click();
      await expect
        .poll(() => page.evaluate<string>('navigator.clipboard.readText()'))
        .toBe('Water twice a week.');
      // The renderer's code-block copy hook: the answer's text is marked copyable.
      expect(await answer.locator('.text[data-copyable]').count()).toBe(1);

      const times = () =>
        page.evaluate<string[]>(
          `[...document.querySelectorAll('#log .bubble[data-id] time')].map((t) => t.dateTime)`,
        );
      const live = await times();
      expect(live).toHaveLength(2);
      for (const t of live) expect(Math.abs(Date.parse(t) - Date.now())).toBeLessThan(60_000);
      const label = await page.evaluate<string>(
        `getComputedStyle(document.querySelector('#log .bubble[data-id] time'), '::before').content`,
      );
      expect(label).toMatch(/\d{1,2}:\d{2}/);
      // A message's text stays its words alone: the time and the buttons are not in it.
      expect(await answer.locator('.text').textContent()).toBe('Water twice a week.');
      await page.reload();
      await expect.poll(() => times(), { timeout: 10_000 }).toHaveLength(2);
      const reloaded = await times();
      // The stored times: the same minute as shown live.
      for (const [i, t] of reloaded.entries())
        expect(Math.abs(Date.parse(t) - Date.parse(live[i]!))).toBeLessThan(5_000);
      expect(grave(await axeViolations(page))).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
