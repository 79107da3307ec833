import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../fakes/model-server.ts';
import {
  CHROMIUM,
  type ChromiumSession,
  haveChromium,
  launchChromium,
  saveScreenshot,
  skipBrowser,
  watchProblems,
} from '../support/chromium.ts';
import { fixturePacks, type Harness, startHarness } from '../support/harness.ts';

const SCREENSHOT = fileURLToPath(new URL('../../docs/web-chat.png', import.meta.url));
const skipped = skipBrowser('web-chat-browser', 'the web chat');

/** An answer in Markdown with markup a model might be tricked into writing. */
const ANSWER =
  'Beta says **hello**, and here is some markup: <script>document.title="pwned"</script> ' +
  '<img src="https://tracker.example/x.png" onerror="document.title=\'pwned\'"> done.';
const SHOWN =
  'Beta says hello, and here is some markup: <script>document.title="pwned"</script> ' +
  '<img src="https://tracker.example/x.png" onerror="document.title=\'pwned\'"> done.';

describe.skipIf(skipped)('the web chat in a real browser', () => {
  let h: Harness;
  let browser: ChromiumSession | undefined;
  let chatUrl: string;

  beforeAll(async () => {
    if (!haveChromium) return;
    const printed: string[] = [];
    h = await startHarness(
      { SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) },
      { app: { announce: (line) => printed.push(line) } },
    );
    chatUrl = printed.find((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;
    browser = await launchChromium({
      viewport: { width: 900, height: 700 },
      locale: 'en-US',
      colorScheme: 'light',
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('has Chromium to drive', () => {
    if (!haveChromium)
      throw new Error(`CI=true and no Chromium at ${CHROMIUM}: the browser test must run in CI.`);
  });

  it.skipIf(!haveChromium)(
    'sends a line, picks a pack with a button, streams the answer as text, and keeps to 127.0.0.1',
    async () => {
      const page = await browser!.context.newPage();
      const problems = watchProblems(page);
      const requested: string[] = [];
      browser!.context.on('request', (r) => requested.push(r.url()));
      h.model.enqueue({ text: ANSWER, chunks: 5, chunkDelayMs: 300 });

      await page.goto(chatUrl);
      // The token left the address bar for a cookie.
      expect(new URL(page.url()).search).toBe('');
      await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
      const log = page.getByRole('log');
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
      expect(await page.title()).toBe('satchel · chat');
      expect(lastUserText(h.model.chatRequests()[0]!)).toBe('hello there');
      saveScreenshot(SCREENSHOT, await page.screenshot({ type: 'png' }));

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
      expect([...hosts]).toEqual([new URL(chatUrl).host]);
      expect(new URL(chatUrl).hostname).toBe('127.0.0.1');
    },
    60_000,
  );
});
