/**
 * Voice replies in the web chat (SPEC §16, §18), in a real Chromium: with VOICE_REPLY=always
 * an answer arrives as text, then as a player of the spoken answer (the fake model server's
 * real Ogg/Opus file) that Chromium loads through the chat's authenticated file route and can
 * decode; it is there again after a reload, and nothing breaks the page's CSP.
 */
import { describe, expect, it } from 'vitest';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';

const skipped = skipBrowser('web-voice-browser', 'voice replies in the web chat');

describe.skipIf(skipped)('voice replies in the web chat, in a real browser', () => {
  const web = chatInBrowser({ VOICE_REPLY: 'always' });
  const { h } = web;

  it.skipIf(!haveChromium)(
    'plays the spoken answer after its text, from the chat behind its token',
    async () => {
      const { page, problems, log } = await web.open();
      h.model.enqueue({ text: 'Your **basil** needs water today.' });
      await page.getByLabel('Message').fill('how is my basil?');
      await page.getByLabel('Message').press('Enter');

      const player = log.getByLabel('Voice reply');
      await expect.poll(() => player.count(), { timeout: 10_000 }).toBe(1);
      const bots = log.locator('.bubble.bot');
      expect(await bots.allTextContents()).toEqual(['Your basil needs water today.', '']);
      expect(await bots.last().locator('audio[controls]').count()).toBe(1);
      const [speech] = h.model.requests({ kind: 'speech' });
      expect(speech?.body).toMatchObject({
        input: 'Your basil needs water today.',
        response_format: 'opus',
      });

      // Chromium fetched the file from the chat and decoded it: the fixture lasts about 2 s.
      const duration = () =>
        player.evaluate((audio: { duration: number; readyState: number }) =>
          audio.readyState >= 1 ? audio.duration : 0,
        );
      await expect.poll(duration, { timeout: 10_000 }).toBeGreaterThan(1);
      const src = await player.evaluate((audio: { src: string }) => audio.src);
      expect(src).toMatch(/\/chat\/files\/[0-9a-f-]{36}\.ogg$/);

      // Without the token the file is not given out.
      const anonymous = await fetch(src);
      expect(anonymous.status).toBe(401);
      const owner = await page.request.get(src);
      expect(owner.headers()['content-type']).toBe('audio/ogg');
      expect((await owner.body()).subarray(0, 4).toString('latin1')).toBe('OggS');

      await page.reload();
      await page.locator('#status', { hasText: /^Connected$/ }).waitFor();
      await expect.poll(duration, { timeout: 10_000 }).toBeGreaterThan(1);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
