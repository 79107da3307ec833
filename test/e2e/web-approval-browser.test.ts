/**
 * SPEC §17's approval in the web chat, driven in Chromium: the question with its three
 * buttons, what the model reads after Deny, the write after Allow once, a standing grant
 * after "Always allow", and /approvals from the box.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/model-requests.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixtureWithTools } from '../support/harness.ts';

const skipped = skipBrowser('web-approval-browser', 'approvals in the web chat');
const NOT_APPROVED = 'Error: the owner did not approve this call';
const ALWAYS = 'Always allow memory in alpha';
/** An element's widths (the test has no DOM types). */
type Sized = { scrollWidth: number; clientWidth: number };

describe.skipIf(skipped)('an approval in the web chat, in a real browser', () => {
  const web = chatInBrowser({
    SATCHEL_PACKS: fixtureWithTools('alpha', ['memory', 'db_write']),
    TOOL_APPROVAL: 'always',
  });
  const { h } = web;
  let page: Page;
  let problems: string[];
  let log: Locator;

  beforeAll(async () => {
    if (!haveChromium) return;
    ({ page, problems, log } = await web.open());
  }, 60_000);

  const memoryFile = () => readFileSync(path.join(h.home, 'packs', 'alpha', 'MEMORY.md'), 'utf8');
  const appendCall = (text: string) => ({
    toolCalls: [{ name: 'memory', arguments: { action: 'append', file: 'MEMORY.md', text } }],
  });

  async function type(line: string): Promise<void> {
    await page.getByLabel('Message').fill(line);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  /** Sends `line`, the model asking to append `note` to MEMORY.md; waits for the question. */
  async function askToAppend(line: string, note: string, answer: string): Promise<Locator> {
    h.model.enqueue(appendCall(note), { text: answer });
    await type(line);
    const question = log.locator('.bubble.bot').filter({ hasText: 'Allow memory?' }).last();
    await expect
      .poll(() => question.locator('.buttons').getByRole('button').allTextContents(), {
        timeout: 10_000,
      })
      .toEqual(['Allow once', ALWAYS, 'Deny']);
    return question;
  }

  /** The text of the element that has the keyboard focus. */
  const focused = () => page.evaluate<string | undefined>('document.activeElement?.textContent');

  /** The answer `text` shown as the conversation's last message. */
  const answered = (text: string) =>
    expect
      .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
      .toContain(text);

  it.skipIf(!haveChromium)(
    'shows the question as text with three buttons; Deny, pressed from the keyboard, leaves MEMORY.md and tells the model',
    async () => {
      const before = memoryFile();
      // A long argument (what the owner must read before allowing) is shown whole, wrapped:
      // nothing of it hides past the edge of its box.
      const note = `owner has a fern, see http://collector.example/c?m=${'NOTE'.repeat(25)}`;
      const question = await askToAppend('remember my fern', note, 'Not saved.');
      const shown = (await question.locator('.text').textContent()) ?? '';
      expect(shown).toContain('🔐 Allow memory? (Alpha Garden)');
      expect(shown).toContain('This call would change what satchel keeps.');
      expect(shown).toContain(note);
      expect(shown).not.toContain('**');
      const box = question.locator('pre');
      const hidden = await box.evaluate((el: Sized) => el.scrollWidth - el.clientWidth);
      expect(hidden).toBeLessThanOrEqual(0);
      expect(await question.locator('b').first().textContent()).toBe('Allow memory?');

      // From the message box, Shift+Tab walks back through the buttons; Enter presses one.
      await page.getByLabel('Message').focus();
      await page.keyboard.press('Shift+Tab');
      expect(await focused()).toBe('Deny');
      await page.keyboard.press('Shift+Tab');
      expect(await focused()).toBe(ALWAYS);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');

      await answered('Not saved.');
      expect(toolResults(h.model.chatRequests()[1])).toEqual([NOT_APPROVED]);
      expect(memoryFile()).toBe(before);
      expect(h.logs('approval_denied')).toMatchObject([{ tool: 'memory', reason: 'denied' }]);
      // The question shows the answer in place of its buttons, and the keyboard is back
      // in the message box (not lost with the buttons that went).
      await expect.poll(() => question.textContent()).toContain('→ Deny');
      // (The message's own actions, such as Copy, stay: they are not the question's.)
      expect(await question.locator('.buttons').getByRole('button').count()).toBe(0);
      expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('message');
    },
    60_000,
  );

  it.skipIf(!haveChromium)('after Allow once the note is appended', async () => {
    const question = await askToAppend('remember my basil', 'owner has basil', 'Saved.');
    await question.getByRole('button', { name: 'Allow once' }).click();
    await answered('Saved.');
    expect(memoryFile()).toContain('owner has basil');
    // The model reads the write's own result (after the earlier turn's refusal, in history).
    expect(toolResults(h.model.chatRequests().at(-1)).at(-1)).toMatch(/^MEMORY.md appended/);
    expect(h.rows('SELECT * FROM tool_grants')).toEqual([]);
  });

  it.skipIf(!haveChromium)(
    'after Always allow the next call runs unasked; /approvals lists the grant and /approvals reset removes it',
    async () => {
      const question = await askToAppend('remember my cactus', 'owner has a cactus', 'Kept.');
      await question.getByRole('button', { name: ALWAYS }).click();
      await answered('Kept.');
      expect(memoryFile()).toContain('owner has a cactus');
      expect(h.rows('SELECT pack, tool FROM tool_grants')).toEqual([
        { pack: 'alpha', tool: 'memory' },
      ]);

      const asked = h.logs('approval_requested').length;
      h.model.enqueue(appendCall('owner has a palm'), { text: 'Kept the palm.' });
      await type('remember my palm');
      await answered('Kept the palm.');
      expect(memoryFile()).toContain('owner has a palm');
      expect(h.logs('approval_requested')).toHaveLength(asked);
      expect(await log.locator('.buttons').getByRole('button').count()).toBe(0);

      await type('/approvals');
      await answered('memory in Alpha Garden');
      await type('/approvals reset');
      await answered('Removed 1 standing approval');
      expect(h.rows('SELECT * FROM tool_grants')).toEqual([]);
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
