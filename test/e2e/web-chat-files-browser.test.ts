/**
 * Files and voice from the web chat in a real Chromium: a photo by the file picker, a
 * document dropped on the page, a picture pasted into the box, and a recording from
 * Chromium's fake microphone. What the model and the fake Groq server got is checked.
 */
import { describe, expect, it } from 'vitest';
import { imagesOf, lastUserText } from '../fakes/model-server.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { FAKE_MICROPHONE, haveChromium, skipBrowser } from '../support/chromium.ts';

const skipped = skipBrowser('web-chat-files-browser', 'files and voice in the web chat');

describe.skipIf(skipped)('files and voice in the web chat, in a real browser', () => {
  const web = chatInBrowser(
    ({ model }) => ({ GROQ_API_KEY: 'gsk-test-groq-key-0123456789', GROQ_BASE_URL: model.url }),
    { args: FAKE_MICROPHONE },
  );
  const { h } = web;

  it.skipIf(!haveChromium)(
    'sends a photo chosen with the picker and its caption; the model sees it, the page shows it after a reload',
    async () => {
      const { page, problems, log } = await web.open();
      // A real 40×30 picture, drawn here.
      const png = await page.evaluate<string>(`(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 40;
        canvas.height = 30;
        const context = canvas.getContext('2d');
        context.fillStyle = '#2a9d3f';
        context.fillRect(0, 0, 40, 30);
        return canvas.toDataURL('image/png').split(',')[1];
      })()`);
      const before = h.model.chatRequests().length;

      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Attach files' }).click();
      await (await chooser).setFiles({
        name: 'basil.png',
        mimeType: 'image/png',
        buffer: Buffer.from(png, 'base64'),
      });
      const tray = page.getByRole('list', { name: 'Files to send' });
      await expect.poll(() => tray.textContent()).toContain('basil.png');
      await page.getByLabel('Message').fill('what plant is this?');
      await page.getByRole('button', { name: 'Send' }).click();

      await expect.poll(() => h.model.chatRequests().length, { timeout: 10_000 }).toBe(before + 1);
      const request = h.model.chatRequests()[before]!;
      expect(imagesOf(request)).toEqual([{ mimeType: 'image/png', data: png }]);
      expect(lastUserText(request)).toContain('what plant is this?');
      expect(await tray.isHidden()).toBe(true);
      expect(await page.getByLabel('Message').inputValue()).toBe('');

      // The sent picture is in the owner's bubble, loaded from the chat, and again after a reload.
      const thumbnail = log.getByRole('img', { name: 'Photo you sent' });
      const width = () => thumbnail.evaluate((img: { naturalWidth: number }) => img.naturalWidth);
      await expect.poll(width).toBe(40);
      expect(await log.locator('.bubble.user').last().textContent()).toContain(
        'what plant is this?',
      );
      // Its caption names the new conversation in the list, as a first line does.
      const opened = page
        .getByRole('navigation', { name: 'Conversations' })
        .locator('[aria-current]');
      await expect.poll(() => opened.textContent()).toBe('what plant is this?');
      await page.reload();
      await expect.poll(width).toBe(40);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(!haveChromium)(
    'sends a document dropped on the page and a picture pasted into the box',
    async () => {
      const { page, problems, log } = await web.open();
      const before = h.model.chatRequests().length;
      /** A DataTransfer holding one file, as a drop or a paste carries it. */
      const holding = (name: string, type: string, body: Buffer) =>
        `(() => {
          const data = new DataTransfer();
          const bytes = Uint8Array.from(atob('${body.toString('base64')}'), (c) => c.charCodeAt(0));
          data.items.add(new File([bytes], ${JSON.stringify(name)}, { type: ${JSON.stringify(type)} }));
          return data;
        })()`;

      const dropped = await page.evaluateHandle(
        holding('words.csv', 'text/csv', Buffer.from('word,meaning\nhaus,house\n')),
      );
      await page.dispatchEvent('main', 'dragover', { dataTransfer: dropped });
      await page.dispatchEvent('main', 'drop', { dataTransfer: dropped });
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => h.model.chatRequests().length, { timeout: 10_000 }).toBe(before + 1);
      const said = lastUserText(h.model.chatRequests()[before]!);
      expect(said).toContain('"words.csv" (text/csv');
      expect(said).toContain('haus,house');
      await expect.poll(() => log.locator('.sent-file').last().textContent()).toBe('words.csv');

      // A screenshot pasted: a real JPEG, drawn here.
      const jpeg = await page.evaluate<string>(`(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 24;
        canvas.height = 16;
        canvas.getContext('2d').fillRect(0, 0, 24, 16);
        return canvas.toDataURL('image/jpeg').split(',')[1];
      })()`);
      await page.getByLabel('Message').focus();
      await page.evaluate(`document.getElementById('message').dispatchEvent(
        new ClipboardEvent('paste', {
          clipboardData: ${holding('image.jpg', 'image/jpeg', Buffer.from(jpeg, 'base64'))},
          bubbles: true,
        }),
      )`);
      await page.getByLabel('Message').press('Enter');
      await expect.poll(() => h.model.chatRequests().length, { timeout: 10_000 }).toBe(before + 2);
      expect(imagesOf(h.model.chatRequests()[before + 1]!)).toEqual([
        { mimeType: 'image/jpeg', data: jpeg },
      ]);
      const thumbnail = log.getByRole('img', { name: 'Photo you sent' }).last();
      await expect
        .poll(() => thumbnail.evaluate((img: { naturalWidth: number }) => img.naturalWidth))
        .toBe(24);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(!haveChromium)(
    'records voice from the microphone; Groq gets a WebM recording and the model its transcript',
    async () => {
      const { page, problems, log } = await web.open();
      const before = h.model.chatRequests().length;
      h.model.enqueueTranscription({ text: 'water the basil on Sunday', duration: 1.4 });
      const record = page.getByRole('button', { name: 'Record voice' });
      await record.click();
      const recording = page.getByRole('button', { name: 'Stop recording and send' });
      expect(await recording.getAttribute('aria-pressed')).toBe('true');
      // A second of the fake microphone's beep, by the page's own timer.
      await expect.poll(() => recording.textContent(), { timeout: 10_000 }).toContain('0:01');
      await recording.click();

      const stt = await h.model.waitForTranscription(1, 10_000);
      expect(stt.body.file.filename).toBe('voice.webm');
      expect(stt.body.file.contentType).toMatch(/^audio\/webm/);
      // A WebM file (EBML header) with more than its header in it.
      expect(stt.body.file.data.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
      expect(stt.body.file.size).toBeGreaterThan(1000);
      await expect.poll(() => h.model.chatRequests().length, { timeout: 10_000 }).toBe(before + 1);
      const said = lastUserText(h.model.chatRequests()[before]!);
      expect(said).toMatch(/voice message, transcribed/i);
      expect(said).toContain('water the basil on Sunday');
      await expect.poll(() => log.locator('.sent-file.voice').count()).toBe(1);
      expect(await record.getAttribute('aria-pressed')).toBe('false');
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});
