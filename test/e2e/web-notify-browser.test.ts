/**
 * A scheduled job's message that arrives while the web chat is in the background raises a
 * browser notification (SPEC §16), in a real Chromium; permission is asked for on the owner's
 * click, and an answer to the owner raises none, however it arrives. The server marks a job's
 * message on its entry (`job`: its pack), live and in the snapshot a reload gets. Headless
 * Chromium keeps every tab visible, so the page's visibility is set from the test
 * (document.hidden, visibilitychange; kept across a reload), and the notifications the page
 * makes are recorded as it makes them. The app's clock is the test's: the job comes due when
 * the test says.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const skipped = skipBrowser('web-notify-browser', "the web chat's notifications");

/** Runs in the page before its scripts: a switch for its visibility, and a record of what it shows. */
const BACKGROUND_AND_RECORD = `(() => {
  let hidden = sessionStorage.getItem('hidden') === 'yes';
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible'),
  });
  window.setBackground = (value) => {
    hidden = value;
    sessionStorage.setItem('hidden', value ? 'yes' : 'no');
    document.dispatchEvent(new Event('visibilitychange'));
  };
  const Real = window.Notification;
  window.shown = [];
  window.asked = Number(sessionStorage.getItem('asked') ?? 0);
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.shown.push({ title, body: options?.body });
    }
    static requestPermission() {
      sessionStorage.setItem('asked', String(++window.asked));
      return Real.requestPermission();
    }
  };
})()`;

/** The bot entries a page that connects now is shown first: their words and their job. */
const SNAPSHOT_BOTS = `new Promise((resolve) => {
  const id = decodeURIComponent(location.hash.slice(1));
  const events = new EventSource('/chat/events?c=' + encodeURIComponent(id));
  events.addEventListener('snapshot', (event) => {
    events.close();
    const { entries } = JSON.parse(event.data);
    resolve(entries.filter((e) => e.kind === 'bot').map((e) => ({
      words: e.text ?? new DOMParser().parseFromString(e.html, 'text/html').body.textContent,
      job: e.job ?? null,
    })));
  });
})`;

type Shown = { title: string; body: string }[];

/** `at` as the schedule tool takes a time: to the second, with its offset. */
const isoSeconds = (at: number) => new Date(at).toISOString().replace(/\.\d+Z$/, '+00:00');

describe.skipIf(skipped)('the web chat notifies of scheduled messages, in a real browser', () => {
  const clock = new JumpClock();
  const web = chatInBrowser(
    { SATCHEL_PACKS: fixturePacks(['alpha']), BATCH_WINDOW_MS: '0' },
    { app: { clock } },
  );
  const { h } = web;

  it.skipIf(!haveChromium)(
    "asks on the owner's click, then shows a job's message that arrives in the background, never an answer",
    async () => {
      await web.browser.context.addInitScript(BACKGROUND_AND_RECORD);
      const { page, log, problems } = await web.open();
      const shown = () => page.evaluate<Shown>('window.shown');
      const asked = () => page.evaluate<number>('window.asked');
      const ask = page.getByRole('button', { name: 'Notify me of scheduled messages' });
      expect(await ask.isVisible()).toBe(true);
      expect(await asked()).toBe(0);
      expect(grave(await axeViolations(page))).toEqual([]);
      await web.browser.context.grantPermissions(['notifications']);
      await ask.click();
      await expect.poll(() => ask.isHidden()).toBe(true);
      expect(await asked()).toBe(1);

      // The model makes a one-time job, due in a minute of the app's time.
      const dueAt = Math.ceil((clock.now() + 60_000) / 1000) * 1000;
      h.model.enqueue(
        {
          toolCalls: [
            {
              name: 'schedule',
              arguments: {
                action: 'create',
                schedule: isoSeconds(dueAt),
                prompt: 'Remind me to water the fern.',
              },
            },
          ],
        },
        { text: 'I will remind you.' },
      );
      await page.getByLabel('Message').fill('Fern care');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toContain('I will remind you.');
      expect(await shown()).toEqual([]);

      // In the background, the owner asks from elsewhere and the answer takes its time; the
      // page is reloaded meanwhile, so it never saw the line, and the job comes due while the
      // answer is written: it runs after it, in the same conversation.
      await page.evaluate('window.setBackground(true)');
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      const asking = h.model.chatRequests().length;
      h.model.enqueue(
        { text: 'Ferns like shade.', until: answered },
        { text: 'Time to **water** the fern!' },
      );
      await page.evaluate(`fetch('/chat/send', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ conversation: decodeURIComponent(location.hash.slice(1)), text: 'and light?' }) })`);
      await expect.poll(() => h.model.chatRequests().length).toBe(asking + 1);
      await page.reload();
      await page.locator('#status', { hasText: /^Connected$/ }).waitFor();
      expect(await page.evaluate<boolean>('document.hidden')).toBe(true);
      clock.advance(dueAt - clock.now() + 1_000);
      answer();

      // The answer raises nothing; the job's message, right after it, a notification that
      // names the conversation and the job's pack.
      await expect
        .poll(shown, { timeout: 20_000 })
        .toEqual([
          { title: 'Fern care · Alpha Garden · satchel', body: 'Time to water the fern!' },
        ]);
      const bots = log.locator('.bubble.bot .text');
      expect((await bots.allTextContents()).slice(-2)).toEqual([
        'Ferns like shade.',
        'Time to water the fern!',
      ]);

      // A reload's snapshot marks the job's message, and only it.
      expect(
        (await page.evaluate<{ words: string; job: string | null }[]>(SNAPSHOT_BOTS)).slice(-3),
      ).toEqual([
        { words: expect.stringContaining('I will remind you.'), job: null },
        { words: 'Ferns like shade.', job: null },
        { words: 'Time to water the fern!', job: 'alpha' },
      ]);
      expect(await asked()).toBe(1);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
