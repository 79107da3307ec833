import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COOKIE_MAX_AGE_S } from '../../src/dashboard/auth.ts';
import { KEPT_TOKEN_FILE } from '../../src/dashboard/kept-token.ts';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';

const skipped = skipBrowser('web-signin-browser', 'staying signed in to the web chat');

/** A port free now: the app listens on it again after a restart, as a real one would. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const port = await freePort();

describe.skipIf(skipped)('staying signed in to the web chat', () => {
  const web = chatInBrowser({ DASHBOARD_PORT: String(port) });
  const { h } = web;
  const keptToken = () => readFileSync(path.join(h.home, KEPT_TOKEN_FILE), 'utf8').trim();

  it.skipIf(!haveChromium)(
    'keeps the token across a restart, and an open tab reconnects by itself',
    async () => {
      // No DASHBOARD_TOKEN: a token made once and kept in SATCHEL_HOME, its owner's only.
      expect(h.env.DASHBOARD_TOKEN).toBeUndefined();
      expect(statSync(path.join(h.home, KEPT_TOKEN_FILE)).mode & 0o777).toBe(0o600);
      const token = keptToken();
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(new URL(web.chatUrl).searchParams.get('token')).toBe(token);

      const { page, log } = await web.open();
      // The cookie lasts 30 days, and script cannot read it.
      const [cookie] = await web.browser.context.cookies(`http://127.0.0.1:${port}/chat`);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', value: token });
      const days = (cookie!.expires - Date.now() / 1000) / 86_400;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThanOrEqual(30);

      h.model.enqueue({ text: 'Before the restart.' });
      await page.getByLabel('Message').fill('first');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent())
        .toBe('Before the restart.');

      await h.restart();
      // The same token, the same address: the tab reconnects without a reload.
      expect(keptToken()).toBe(token);
      expect(new URL(web.chatUrl).searchParams.get('token')).toBe(token);
      await expect
        .poll(() => page.locator('#status').textContent(), { timeout: 15_000 })
        .toBe('Connected');
      h.model.enqueue({ text: 'After the restart.' });
      await page.getByLabel('Message').fill('second');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toBe('After the restart.');
      expect(await log.locator('.bubble.user').allTextContents()).toEqual(['first', 'second']);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'turns an open tab whose cookie is gone into the sign-in page when it reconnects',
    async () => {
      const { page } = await web.open();
      await web.browser.context.clearCookies();
      await h.restart();
      // The events are refused now (401): the tab reloads into the sign-in page, not
      // "Reconnecting…" forever.
      await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Sign in · satchel');
      await page.getByLabel('Token').fill(keptToken());
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'renews the cookie on use: each signed-in request sets it for 30 days more',
    async () => {
      const cookie = `satchel_dashboard_${port}=${encodeURIComponent(keptToken())}`;
      const response = await fetch(`http://127.0.0.1:${port}/chat/conversations`, {
        headers: { cookie },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBe(
        `${cookie}; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict; Path=/`,
      );
      // A script's Bearer token is not a browser's sign-in: no cookie for it.
      const bearer = await fetch(`http://127.0.0.1:${port}/chat/conversations`, {
        headers: { authorization: `Bearer ${keptToken()}` },
      });
      expect(bearer.status).toBe(200);
      expect(bearer.headers.get('set-cookie')).toBeNull();
    },
  );

  it.skipIf(!haveChromium)(
    'shows a sign-in page without the cookie, says where the token is and whose chat it is',
    async () => {
      // A browser without the cookie (never signed in, or 30 days unused).
      const { context } = web.browser;
      await context.clearCookies();
      const page = await context.newPage();
      try {
        const response = await page.goto(`http://127.0.0.1:${port}/chat`);
        expect(response!.status()).toBe(401);
        await expect.poll(() => page.title()).toBe('Sign in · satchel');
        const text = (await page.locator('main').textContent()) ?? '';
        expect(text).toContain("This web chat is the owner's");
        expect(text).toContain('Other people talk to satchel on their own channel');
        expect(text).toContain('satchel web chat: http://…/chat?token=…');
        expect(text).toContain('dashboard-token');
        expect(grave(await axeViolations(page))).toEqual([]);

        // The home-screen app starts at /chat: it lands here too.
        const manifest = (await (
          await fetch(`http://127.0.0.1:${port}/chat/manifest.webmanifest`)
        ).json()) as { start_url: string };
        expect(manifest.start_url).toBe('/chat');

        await page.getByLabel('Token').fill('not-the-token');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect
          .poll(() => page.getByRole('alert').textContent())
          .toBe('That is not the right token. Paste it again.');
        expect(grave(await axeViolations(page))).toEqual([]);

        await page.getByLabel('Token').fill(keptToken());
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.locator('#status').textContent()).toBe('Connected');
        expect(new URL(page.url()).search).toBe('');
        // The chat's title names the open conversation, no longer the sign-in page.
        await expect.poll(() => page.title()).toMatch(/^(?!Sign in).+ · satchel$/);
      } finally {
        await page.close();
      }
    },
    30_000,
  );
});
