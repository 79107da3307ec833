import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../fakes/model-server.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';

const skipped = skipBrowser('web-chat-browser', 'the web chat');

/** An answer in Markdown with markup a model might be tricked into writing (no screenshot). */
const ANSWER =
  'Beta says **hello**, and here is some markup: <script>document.title="pwned"</script> ' +
  '<img src="https://tracker.example/x.png" onerror="document.title=\'pwned\'"> done.';
const SHOWN =
  'Beta says hello, and here is some markup: <script>document.title="pwned"</script> ' +
  '<img src="https://tracker.example/x.png" onerror="document.title=\'pwned\'"> done.';

describe.skipIf(skipped)('the web chat in a real browser', () => {
  const web = chatInBrowser({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) });
  const { h } = web;

  it.skipIf(!haveChromium)(
    'sends a line, picks a pack with a button, streams the answer as text, and keeps to 127.0.0.1',
    async () => {
      const requested: string[] = [];
      web.browser.context.on('request', (r) => requested.push(r.url()));
      h.model.enqueue({ text: ANSWER, chunks: 5, chunkDelayMs: 300 });

      const { page, problems, log } = await web.open();
      // The token left the address bar for a cookie.
      expect(new URL(page.url()).search).toBe('');
      await page.getByLabel('Message').fill('hello there');
      await page.getByRole('button', { name: 'Send' }).click();

      // Two packs and none chosen: the picker, as buttons that press.
      await log.getByRole('button', { name: 'Beta Books' }).click();
      // The answer streams into a live bubble, then the final message takes its place.
      await expect
        .poll(() => log.locator('.live').count(), { timeout: 10_000, interval: 20 })
        .toBe(1);
      const draft = (await log.locator('.live').textContent()) ?? '';
      expect(SHOWN.startsWith(draft.trim())).toBe(true);
      expect(draft.trim().length).toBeLessThan(SHOWN.length);
      const answer = log.locator('.bubble.bot').last();
      await expect
        .poll(() => answer.textContent(), { timeout: 10_000 })
        .toBe(`${SHOWN}\n\n— Beta Books`);
      expect(await log.locator('.live').count()).toBe(0);
      // Markdown is rendered; the markup in it is only text.
      expect(await answer.locator('b').textContent()).toBe('hello');
      expect(await log.locator('script, img').count()).toBe(0);
      // The title names the conversation (its first line) and its pack.
      await expect.poll(() => page.title()).toBe('hello there · Beta Books · satchel');
      expect(lastUserText(h.model.chatRequests()[0]!)).toBe('hello there');

      // Commands work from the box, Enter sends.
      await page.getByLabel('Message').fill('/help');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toContain('/pack');
      expect(await page.getByLabel('Message').inputValue()).toBe('');

      // A reload shows the recent conversation.
      await page.reload();
      await expect.poll(() => log.locator('.bubble.user').count()).toBe(2);
      expect(await log.locator('.bubble.user').first().textContent()).toBe('hello there');

      // To the dashboard and back; the turn is there as a web turn.
      await page.getByRole('link', { name: 'Usage & cost' }).click();
      await expect.poll(() => page.locator('#turns').textContent()).toContain('web');
      await page.getByRole('link', { name: 'Chat' }).click();
      await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
      expect(await log.locator('.bubble').count()).toBeGreaterThan(3);
      await page.close();

      expect(problems).toEqual([]);
      expect(h.tg.calls().filter((c) => c.params.chat_id !== undefined)).toEqual([]);
      const hosts = new Set(
        requested.filter((r) => !r.startsWith('data:')).map((r) => new URL(r).host),
      );
      expect([...hosts]).toEqual([new URL(web.chatUrl).host]);
      expect(new URL(web.chatUrl).hostname).toBe('127.0.0.1');
    },
    60_000,
  );
});

/** The bundled vocab pack, copied: a running satchel writes nothing into the repository. */
function bundledVocab(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bundled-'));
  cpSync(fileURLToPath(new URL('../../packs/vocab', import.meta.url)), path.join(dir, 'vocab'), {
    recursive: true,
  });
  return dir;
}

/** A conversation with the bundled vocab pack: two questions, answered in Markdown. */
const CONVERSATION = [
  {
    ask: 'What is the difference between ser and estar?',
    answer:
      '**Ser** and **estar** both mean *to be*, but they answer different questions:\n\n' +
      '- **ser**: what something *is* (identity, origin, job, character). _Soy de Madrid._\n' +
      '- **estar**: how or where it is *right now* (mood, state, place). _Estoy cansado._\n\n' +
      'A quick test: if it could be different tomorrow, it is usually **estar**.',
    shown: 'Ser and estar both mean to be',
  },
  {
    ask: 'Quiz me on it',
    answer:
      'Fill in the blank with *es* or *está*:\n\n' +
      '1. Mi hermana ___ médica.\n' +
      '2. Hoy la playa ___ llena de gente.\n' +
      '3. La reunión ___ a las diez.\n\n' +
      'Reply with three words, like `es, está, es`.',
    shown: 'Fill in the blank with es or está',
  },
];

describe.skipIf(skipped)('a conversation in the web chat with a bundled pack', () => {
  let packs: string | undefined;
  // Registered before the rig's: hooks run as a stack, so the copy goes after satchel stops.
  afterAll(() => {
    if (packs) rmSync(packs, { recursive: true, force: true });
  });
  const web = chatInBrowser(
    () => {
      packs = bundledVocab();
      return { SATCHEL_PACKS: packs };
    },
    { context: { deviceScaleFactor: 1 } },
  );
  const { h } = web;

  it.skipIf(!haveChromium)(
    'shows a question to the bundled vocab pack and its answers in Markdown',
    async () => {
      const { page, problems, log } = await web.open();
      for (const [i, turn] of CONVERSATION.entries()) {
        h.model.enqueue({ text: turn.answer, usage: { input: 1800, output: 120 } });
        await page.getByLabel('Message').fill(turn.ask);
        await page.getByLabel('Message').press('Enter');
        await expect
          .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
          .toContain(turn.shown);
        expect(lastUserText(h.model.chatRequests()[i]!)).toBe(turn.ask);
      }
      const answers = log.locator('.bubble.bot');
      // Markdown is rendered: bold and italic words, a code span.
      expect(await answers.first().locator('b').first().textContent()).toBe('Ser');
      expect(await answers.first().locator('i').first().textContent()).toBe('to be');
      expect(await answers.last().locator('code').textContent()).toBe('es, está, es');
      expect(await log.textContent()).not.toContain('**');
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
