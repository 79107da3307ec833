import type { Response } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lastUserText } from '../fakes/model-server.ts';
import { reply } from '../fakes/web-server.ts';
import { type AxeViolation, axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';
import { webServers } from '../support/web-servers.ts';

const skipped = skipBrowser('web-safety-browser', 'the web chat’s accessibility and origin checks');
const servers = webServers();

/** An answer with what a page shows: a list, bold, a code span, a link-free quote. */
const ANSWER =
  'Here is the plan:\n\n- **water** the basil\n- move the `fern` to the window\n\n> Little and often.';

describe.skipIf(skipped)('the web chat and the dashboard in a real browser', () => {
  const web = chatInBrowser({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) });
  const { h } = web;

  it.skipIf(!haveChromium)(
    'sends with Enter, makes a new line with Shift+Enter, and reads the answer out (aria-live)',
    async () => {
      const { page, problems } = await web.open();
      const box = page.getByRole('textbox', { name: 'Message' });
      // The page starts in the box: typing needs no click.
      await page.keyboard.type('water the basil');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('and the fern');
      expect(await box.inputValue()).toBe('water the basil\nand the fern');
      expect(h.model.chatRequests()).toEqual([]);
      await page.keyboard.press('Enter');
      // Two packs: the picker, whose buttons the keyboard reaches and presses.
      const log = page.getByRole('log');
      const beta = log.getByRole('button', { name: 'Beta Books' });
      await beta.waitFor();
      expect(await box.inputValue()).toBe('');
      h.model.enqueue({ text: ANSWER });
      await beta.focus();
      await page.keyboard.press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toContain('Little and often.');
      expect(lastUserText(h.model.chatRequests()[0]!)).toBe('water the basil\nand the fern');
      // The answer is inside the live region a screen reader announces, politely.
      expect(await log.getAttribute('aria-live')).toBe('polite');
      expect(await log.getAttribute('aria-label')).toBe('Conversation');
      expect(
        await page.evaluate<boolean>(
          `document.getElementById('log').contains(document.querySelector('.bubble.bot:last-child'))`,
        ),
      ).toBe(true);
      // Notices and the connection state are live too.
      expect(await page.locator('#notice').getAttribute('role')).toBe('status');
      expect(await page.locator('#status').getAttribute('role')).toBe('status');
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'axe-core finds no serious or critical violation on /chat (with a conversation) and the dashboard',
    async () => {
      const { page: chat } = await web.open();
      h.model.enqueue({ text: ANSWER });
      await chat.getByLabel('Message').fill('/help');
      await chat.getByLabel('Message').press('Enter');
      await expect
        .poll(() => chat.getByRole('log').locator('.bubble.bot').count(), { timeout: 10_000 })
        .toBeGreaterThan(0);
      const onChat = await axeViolations(chat);

      const dashboard = await web.browser.context.newPage();
      await dashboard.goto(web.announced('dashboard'));
      await expect
        .poll(() => dashboard.locator('#turns tbody tr').count(), { timeout: 10_000 })
        .toBeGreaterThan(0);
      const onDashboard = await axeViolations(dashboard);
      // Dark mode has its own colours.
      await dashboard.emulateMedia({ colorScheme: 'dark' });
      await chat.emulateMedia({ colorScheme: 'dark' });
      const dark = [...(await axeViolations(chat)), ...(await axeViolations(dashboard))];

      const named = (list: AxeViolation[]) =>
        list.map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
      expect(named(grave(onChat))).toEqual([]);
      expect(named(grave(onDashboard))).toEqual([]);
      expect(named(grave(dark))).toEqual([]);
      await chat.close();
      await dashboard.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'Chromium reads the web app manifest the page links, with its icons, and no error',
    async () => {
      const { page, problems } = await web.open();
      const cdp = await web.browser.context.newCDPSession(page);
      const manifest = (await cdp.send('Page.getAppManifest')) as {
        url: string;
        errors: { message: string }[];
        data?: string;
      };
      expect(new URL(manifest.url).pathname).toBe('/chat/manifest.webmanifest');
      expect(manifest.errors).toEqual([]);
      expect(JSON.parse(manifest.data!)).toMatchObject({
        start_url: '/chat',
        display: 'standalone',
      });
      // Each icon loads in the page (under its CSP) at the width the manifest names.
      const icons: { src: string; sizes: string }[] = JSON.parse(manifest.data!).icons;
      const widths = await page.evaluate<number[]>(
        `Promise.all(${JSON.stringify(icons.map((i) => i.src))}.map(async (src) => {
          const image = new Image();
          image.src = src;
          await image.decode();
          return image.naturalWidth;
        }))`,
      );
      expect(widths.map(String)).toEqual(icons.map((i) => i.sizes.split('x')[0]));
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'refuses a post from a page on another local origin, though the browser sends the cookie along',
    async () => {
      // Signed in: the browser holds the chat's cookie.
      const { page: chat } = await web.open();
      const chatOrigin = new URL(web.chatUrl).origin;
      const send = `${chatOrigin}/chat/send`;
      // Another port on 127.0.0.1: another origin, but the same site, so SameSite=Strict
      // does not keep the cookie back. The page tries a script's post and a form's.
      const evil = await servers.start((_req, res) =>
        reply(
          res,
          'text/html; charset=utf-8',
          `<!doctype html><title>evil</title>
          <form method="post" action="${send}" enctype="text/plain">
            <input name='{"text":"from evil form","x":"' value='"}' />
          </form>
          <script>
            fetch(${JSON.stringify(send)}, {
              method: 'POST', mode: 'no-cors', credentials: 'include',
              headers: { 'content-type': 'text/plain' },
              body: JSON.stringify({ text: 'from evil script' }),
            }).finally(() => document.forms[0].submit());
          </script>`,
        ),
      );
      const page = await web.browser.context.newPage();
      const posts: Response[] = [];
      page.on('response', (response) => {
        if (response.url() === send) posts.push(response);
      });
      await page.goto(evil.url);
      await expect.poll(() => posts.length, { timeout: 10_000 }).toBe(2);
      const kinds = posts.map((p) => (p.request().isNavigationRequest() ? 'form' : 'script'));
      expect(kinds.sort()).toEqual(['form', 'script']);
      expect(posts.map((p) => p.status())).toEqual([403, 403]);
      // What the browser sent with the form: the cookie, and the other page's origin.
      const form = posts.find((p) => p.request().isNavigationRequest())!;
      const sent = await form.request().allHeaders();
      expect(sent.cookie).toMatch(/^satchel_dashboard_\d+=/);
      expect(sent.origin).toBe(evil.url);
      expect(sent['sec-fetch-site']).toBe('same-site');
      // The form's post navigated the page to the answer: the reason is there to read.
      await expect
        .poll(() => page.locator('body').textContent())
        .toContain('Cross-site requests are refused');
      // Nothing reached the conversation or the model.
      expect(h.rows("SELECT 1 FROM edge_inbox WHERE payload LIKE '%from evil%'")).toEqual([]);
      expect(await chat.getByRole('log').textContent()).not.toContain('from evil');
      expect(h.model.chatRequests().map(lastUserText)).not.toContainEqual(
        expect.stringContaining('from evil'),
      );
      await page.close();
      await chat.close();
    },
    60_000,
  );
});
