import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Api } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import type { ChannelCapabilities } from '../../src/core/ports.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { createOutbox } from '../../src/outbound/outbox.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { createOutboxRepo } from '../../src/store/outbox-repo.ts';
import { createTelegramChannel } from '../../src/telegram/channel.ts';
import { htmlToPlainText } from '../../src/telegram/plain-text.ts';
import { FakeTelegram } from '../fakes/telegram-server.ts';

const CHAT = 5150;
const to = { platform: 'tg' as const, chatId: String(CHAT) };
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function rig(capabilities?: ChannelCapabilities) {
  const tg = await FakeTelegram.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-media-'));
  const store = openCoreStore(home);
  cleanups.push(
    () => tg.stop(),
    () => rmSync(home, { recursive: true, force: true }),
    () => store.close(),
  );
  const channel = createTelegramChannel(new Api(tg.token, { apiRoot: tg.apiRoot }), capabilities);
  const outbox = createOutbox({
    repo: createOutboxRepo(store.db),
    channel,
    clock: systemClock,
    log: createLogger({ level: 'silent', secrets: [] }),
  });
  return { tg, home, store, outbox };
}

describe('media payloads', () => {
  it('uploads a photo from a file with an HTML caption, and a document by URL', async () => {
    const { tg, home, outbox } = await rig();
    const file = path.join(home, 'chart.png');
    writeFileSync(file, Buffer.alloc(2048, 7));

    const photo = outbox.writePayload(to, {
      kind: 'photo',
      source: { path: file },
      caption: 'Your **weekly** chart',
    });
    const doc = outbox.writePayload(to, {
      kind: 'document',
      source: { url: 'https://example.com/r.pdf' },
    });
    await outbox.dispatch([...photo.ids, ...doc.ids]);

    expect(photo.note).toBeUndefined();
    const [sentPhoto] = tg.calls('sendPhoto');
    expect(sentPhoto?.params).toMatchObject({
      chat_id: CHAT,
      photo: { filename: 'chart.png', size: 2048 },
      caption: 'Your <b>weekly</b> chart',
      parse_mode: 'HTML',
    });
    expect(tg.calls('sendDocument')[0]?.params.document).toBe('https://example.com/r.pdf');
    expect(tg.sent().map((c) => c.method)).toEqual(['sendPhoto', 'sendDocument']);
  });

  it('moves a caption over 1024 units into the text messages that follow', async () => {
    const { tg, outbox } = await rig();
    const caption = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    expect(caption.length).toBeGreaterThan(1024);

    const { ids } = outbox.writePayload(to, {
      kind: 'voice',
      source: { url: 'https://example.com/v.ogg' },
      caption,
    });
    await outbox.dispatch(ids);

    const [voice, ...texts] = tg.sent();
    expect(voice?.method).toBe('sendVoice');
    expect(htmlToPlainText(String(voice?.params.caption)).length).toBeLessThanOrEqual(1024);
    expect(texts.map((t) => t.method)).toEqual(['sendMessage']);
    const shown = [voice?.params.caption, ...texts.map((t) => t.params.text)].join(' ');
    expect(shown.replace(/\s+/g, ' ')).toBe(caption);
  });

  it('degrades what the channel cannot send and says so', async () => {
    const { tg, outbox } = await rig({
      photo: false,
      audio: true,
      voice: false,
      document: true,
      keyboard: true,
    });
    const photo = outbox.writePayload(to, {
      kind: 'photo',
      source: { url: 'https://example.com/cat.jpg' },
      caption: 'a cat',
    });
    const voice = outbox.writePayload(to, {
      kind: 'voice',
      source: { url: 'https://e.com/a.ogg' },
    });
    await outbox.dispatch([...photo.ids, ...voice.ids]);

    expect(photo.note).toBe('photo sent as text with a link');
    expect(voice.note).toBe('voice sent as audio');
    expect(tg.sent().map((c) => c.method)).toEqual(['sendMessage', 'sendAudio']);
    expect(tg.calls('sendMessage')[0]?.params.text).toBe(
      'a cat\n\n<a href="https://example.com/cat.jpg">photo</a>',
    );
  });
});
