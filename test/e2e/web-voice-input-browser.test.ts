/**
 * Voice input in the web chat (SPEC §16), in a real Chromium with its fake microphone: the
 * microphone is offered only when speech-to-text is set up; a recording can be cancelled
 * (Cancel, Escape) and then nothing is sent; a sent one is transcribed by OpenAI's
 * `/audio/transcriptions` on the (strict) fake, and its words show in the owner's bubble —
 * live, after a reload and after a restart. axe-core finds nothing serious while recording.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lastUserText } from '../fakes/model-server.ts';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { FAKE_MICROPHONE, haveChromium, skipBrowser } from '../support/chromium.ts';

const skipped = skipBrowser('web-voice-input-browser', 'voice input in the web chat');

/** Starts a recording and waits for a second of the fake microphone's beep. */
async function recordASecond(page: Page) {
  await page.getByRole('button', { name: 'Record voice' }).click();
  const recording = page.getByRole('button', { name: 'Stop recording and send' });
  await expect.poll(() => recording.textContent(), { timeout: 10_000 }).toContain('0:01');
  return recording;
}

describe.skipIf(skipped)('voice input in the web chat, in a real browser', () => {
  const web = chatInBrowser({ STT_PROVIDER: 'openai' }, { args: FAKE_MICROPHONE });
  const { h } = web;
  const said = 'water the basil on Sunday';

  it.skipIf(!haveChromium)(
    'throws a cancelled recording away, sends the next, and shows its transcript in the bubble',
    async () => {
      const { page, problems, log } = await web.open();
      const record = page.getByRole('button', { name: 'Record voice' });
      expect(await record.isVisible()).toBe(true);
      const cancel = page.getByRole('button', { name: 'Cancel' });
      expect(await cancel.isVisible()).toBe(false);

      // Cancelled with its button: the microphone is free again, nothing was sent.
      await recordASecond(page);
      expect(await cancel.isVisible()).toBe(true);
      expect(grave(await axeViolations(page))).toEqual([]);
      await cancel.click();
      expect(await record.getAttribute('aria-pressed')).toBe('false');
      expect(await cancel.isVisible()).toBe(false);

      // Cancelled with Escape.
      await recordASecond(page);
      await page.keyboard.press('Escape');
      await expect.poll(() => record.getAttribute('aria-pressed')).toBe('false');
      expect(await cancel.isVisible()).toBe(false);

      // Sent: the only recording that reaches the server is this one.
      h.model.enqueueTranscription({ text: said });
      await (await recordASecond(page)).click();
      const stt = await h.model.waitForTranscription(1, 10_000);
      expect(stt.provider).toBe('openai');
      expect(stt.body.fields).toMatchObject({
        model: 'gpt-4o-mini-transcribe',
        response_format: 'json',
      });
      expect(stt.body.file.filename).toBe('voice.webm');
      await expect.poll(() => h.model.chatRequests().length, { timeout: 10_000 }).toBe(1);
      expect(lastUserText(h.model.chatRequests()[0]!)).toContain(said);
      expect(h.model.requests({ kind: 'transcription' })).toHaveLength(1);
      expect(await log.locator('.sent-file.voice').count()).toBe(1);

      // The words join the owner's bubble as soon as they are known, and stay after a reload.
      const mine = log.locator('.bubble.user').last();
      await expect.poll(() => mine.locator('.transcript').textContent()).toBe(said);
      expect(await mine.locator('.sent-file.voice').textContent()).toMatch(
        /^Voice message · 0:0\d$/,
      );
      await page.reload();
      await page.locator('#status', { hasText: /^Connected$/ }).waitFor();
      await expect.poll(() => mine.locator('.transcript').textContent()).toBe(said);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it.skipIf(!haveChromium)('shows the transcript in its bubble after a restart', async () => {
    await h.restart();
    const { page, problems, log } = await web.open();
    const mine = log.locator('.bubble.user').last();
    await expect.poll(() => mine.locator('.transcript').textContent()).toBe(said);
    expect(await mine.locator('.sent-file.voice').count()).toBe(1);
    // Not the label the model reads.
    expect(await mine.textContent()).not.toContain('transcribed automatically');
    expect(problems).toEqual([]);
    await page.close();
  });

  it.skipIf(!haveChromium)('offers no microphone when speech-to-text is off', async () => {
    h.env.STT_PROVIDER = 'off';
    await h.restart();
    const { page, problems } = await web.open();
    expect(await page.getByRole('button', { name: 'Record voice' }).count()).toBe(0);
    expect(await page.locator('#record').isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
