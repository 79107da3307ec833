/**
 * A scheduled job's message that arrives while the web chat is in the background raises a
 * browser notification (SPEC §16), in a real Chromium; permission is asked for on the owner's
 * click, and the owner's own answers raise none. Headless Chromium keeps every tab visible,
 * so the page's visibility is set from the test (document.hidden, visibilitychange), and the
 * notifications the page makes are recorded as it makes them.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';

const skipped = skipBrowser('web-notify-browser', "the web chat's notifications");

/** Runs in the page before its scripts: a switch for its visibility, and a record of what it shows. */
const BACKGROUND_AND_RECORD = `(() => {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible'),
  });
  window.setBackground = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  const Real = window.Notification;
  window.shown = [];
  window.asked = 0;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.shown.push({ title, body: options?.body });
    }
    static requestPermission() {
      window.asked++;
      return Real.requestPermission();
    }
  };
})()`;

type Shown = { title: string; body: string }[];

describe.skipIf(skipped)('the web chat notifies of scheduled messages, in a real browser', () => {
  const web = chatInBrowser({ SATCHEL_PACKS: fixturePacks(['alpha']), BATCH_WINDOW_MS: '0' });
  const { h } = web;

  it.skipIf(!haveChromium)(
    "asks on the owner's click, then shows a job's message that arrives in the background, and not the owner's own answers",
    async () => {
      await web.browser.context.addInitScript(BACKGROUND_AND_RECORD);
      const { page, problems, log } = await web.open();
      const shown = () => page.evaluate<Shown>('window.shown');
      const ask = page.getByRole('button', { name: 'Notify me of scheduled messages' });
      expect(await ask.isVisible()).toBe(true);
      expect(await page.evaluate<number>('window.asked')).toBe(0);
      expect(grave(await axeViolations(page))).toEqual([]);
      await web.browser.context.grantPermissions(['notifications']);
      await ask.click();
      await expect.poll(() => ask.isHidden()).toBe(true);
      expect(await page.evaluate<number>('window.asked')).toBe(1);

      // The model makes a one-time job a few seconds ahead.
      const at = new Date(Date.now() + 12_000).toISOString().replace(/\.\d+Z$/, '+00:00');
      h.model.enqueue(
        {
          toolCalls: [
            {
              name: 'schedule',
              arguments: { action: 'create', schedule: at, prompt: 'Remind me to water the fern.' },
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

      // In the background, the owner's own answer (a line sent from elsewhere) raises nothing.
      await page.evaluate('window.setBackground(true)');
      h.model.enqueue({ text: 'Ferns like shade.', chunks: 3, chunkDelayMs: 100 });
      await page.evaluate(`fetch('/chat/send', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'and light?' }) })`);
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toContain('Ferns like shade.');

      // The job's message, while the page is in the background: a notification.
      h.model.enqueue({ text: 'Time to **water** the fern!' });
      await expect
        .poll(shown, { timeout: 20_000 })
        .toEqual([
          { title: 'Fern care · Alpha Garden · satchel', body: 'Time to water the fern!' },
        ]);
      expect(await log.locator('.bubble.bot').last().textContent()).toContain(
        'Time to water the fern!',
      );
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
