/**
 * Everything a user sends, end to end: voice through Whisper, photos inline or through the
 * vision model, albums, documents, edits, replies and the kinds satchel cannot take in. The
 * fakes see the real grammY download and the real SDK requests.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOPPED } from '../../src/core/errors.ts';
import { NO_STT, NO_VISION, STT_FAILED, VISION_FAILED } from '../../src/inbound/media.ts';
import { BUSY } from '../../src/turn/conversations.ts';
import { EDIT_LABEL } from '../../src/turn/inputs.ts';
import { imagesOf, lastUserText, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const OTHER = 222;
const h = harnessPerTest();

/** A harness with Groq (speech-to-text) on the fake model server. */
const withGroq = (extra: Record<string, string> = {}) =>
  h.start(({ model }) => ({
    GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
    GROQ_BASE_URL: model.url,
    ...extra,
  }));

const ledger = () =>
  h.rows<{ kind: string; audio_seconds: number; images: number; ok: number; model: string }>(
    'SELECT kind, audio_seconds, images, ok, model FROM usage_events ORDER BY id',
  );
const replies = (chatId = ALLOWED_USER) => h.tg.texts(chatId);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 0xff, 0xd9]);

describe('voice', () => {
  it('transcribes a voice note as .ogg, answers it once, and books the audio seconds', async () => {
    await withGroq();
    h.tg.addFile('v1', Buffer.from('OggS fake opus bytes'), 'voice/file_7.oga');
    h.model.enqueueTranscription({ text: 'remind me to water the basil', duration: 4.5 });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1', duration: 5, caption: 'urgent' });
    await settled(h, 1);

    const [stt] = h.model.requests({ kind: 'transcription' });
    expect(stt?.body.file.filename).toBe('file_7.ogg');
    expect(stt?.body.fields.model).toBe('whisper-large-v3-turbo');
    const [chat] = h.model.chatRequests();
    const said = lastUserText(chat!);
    expect(said).toContain('remind me to water the basil');
    expect(said).toMatch(/voice message, transcribed/i);
    expect(said).toContain('urgent');
    expect(replies()).toHaveLength(1);
    expect(ledger()).toMatchObject([
      { kind: 'stt', audio_seconds: 4.5, ok: 1, model: 'whisper-large-v3-turbo' },
      { kind: 'llm', ok: 1 },
    ]);
  });

  it('refuses a voice note over 20 MB without downloading, transcribing or asking the model', async () => {
    await withGroq();
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'huge', fileSize: 21 * 2 ** 20 });
    await settled(h, 1);
    expect(replies()).toEqual(['That file is too big for me: I can take files up to 20 MB.']);
    expect(h.tg.calls('getFile')).toEqual([]);
    expect(h.tg.downloads()).toEqual([]);
    expect(h.model.requests()).toEqual([]);
  });

  it('says speech-to-text is not set up when there is no Groq key, and asks no model', async () => {
    await h.start();
    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_1.oga');
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await settled(h, 1);
    expect(replies()).toEqual([NO_STT]);
    expect(h.model.requests()).toEqual([]);
    expect(h.tg.downloads()).toEqual([]);
  });

  it('neither downloads nor transcribes a voice note once the daily cap is reached', async () => {
    await withGroq({ QUOTA_DAILY_TOKENS: '10' });
    h.tg.text({ userId: ALLOWED_USER, text: 'use up the day' });
    await settled(h, 1);
    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_1.oga');
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await settled(h, 2);
    expect(replies()[1]).toMatch(/daily/i);
    expect(h.model.requests({ kind: 'transcription' })).toEqual([]);
    expect(h.tg.downloads()).toEqual([]);
  });

  it('says transcription failed when Whisper fails, books the failure, and asks no chat model', async () => {
    await withGroq();
    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_1.oga');
    h.model.enqueueTranscription({ status: 500 });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await settled(h, 1);
    expect(replies()).toEqual([STT_FAILED]);
    expect(h.model.chatRequests()).toEqual([]);
    expect(ledger()).toMatchObject([{ kind: 'stt', ok: 0 }]);
  });

  it('stops a download in progress on /stop, and shows voice in /usage', async () => {
    await withGroq();
    h.tg.addFile('slow', Buffer.alloc(4 * 2 ** 20, 1), {
      filePath: 'voice/slow.oga',
      bytesPerSecond: 2 ** 20,
    });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'slow' });
    await h.tg.waitForDownload('voice/slow.oga');
    h.tg.text({ userId: ALLOWED_USER, text: '/stop' });
    await settled(h, 2);
    expect(replies()).toEqual([STOPPED]);
    expect(h.tg.completedDownloads()).toEqual([]);
    expect(h.model.requests()).toEqual([]);

    h.tg.addFile('v2', Buffer.from('OggS'), 'voice/file_2.oga');
    h.model.enqueueTranscription({ text: 'hello', duration: 90 });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v2' });
    await settled(h, 3);
    h.tg.text({ userId: ALLOWED_USER, text: '/usage' });
    await settled(h, 4);
    expect(replies().at(-1)).toContain('voice: 1 transcription(s), 1.5 min of audio');
  });

  it("answers another chat while one chat's big voice note is still downloading", async () => {
    await withGroq({ ALLOWED_USER_IDS: `${ALLOWED_USER},${OTHER}` });
    h.tg.addFile('big', Buffer.alloc(15 * 2 ** 20, 1), {
      filePath: 'voice/big.oga',
      bytesPerSecond: 8 * 2 ** 20,
    });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'big' });
    await h.tg.waitForDownload('voice/big.oga');
    h.tg.text({ userId: OTHER, text: 'quick one' });

    await h.tg.waitForCall('sendMessage', (c) => c.params.chat_id === OTHER);
    expect(h.tg.completedDownloads()).toEqual([]);
    expect(replies(OTHER)).toEqual(['echo: quick one']);
    await settled(h, 2, 15_000);
    expect(h.tg.completedDownloads()).toEqual(['voice/big.oga']);
    expect(replies()).toHaveLength(1);
  });
});

describe('photos', () => {
  it('passes a photo and its caption inline to a model that can see', async () => {
    await h.start();
    h.tg.addFile('p-small', JPEG, 'photos/small.jpg');
    h.tg.addFile('p-large', JPEG, 'photos/large.jpg');
    h.tg.photo({ userId: ALLOWED_USER, fileIds: ['p-small', 'p-large'], caption: 'what plant?' });
    await settled(h, 1);

    expect(h.tg.downloads()).toEqual(['photos/large.jpg']);
    const [chat] = h.model.chatRequests();
    expect(imagesOf(chat!)).toEqual([{ mimeType: 'image/jpeg', data: JPEG.toString('base64') }]);
    expect(lastUserText(chat!)).toContain('what plant?');
    expect(replies()).toHaveLength(1);
    expect(ledger().map((r) => r.kind)).toEqual(['llm']);
  });

  it('has the vision model describe a photo for a text-only model, and books it', async () => {
    await h.start({ LLM_MODEL: 'text-only-model' });
    h.model.enqueue({ text: 'A basil plant with yellow leaves.' });
    h.tg.addFile('p1', JPEG, 'photos/p1.jpg');
    h.tg.photo({ userId: ALLOWED_USER, fileIds: ['p1'], caption: 'is it sick?' });
    await settled(h, 1);

    const [vision, chat] = h.model.chatRequests();
    expect(vision?.model).toBe('gpt-4.1-mini');
    expect(imagesOf(vision!)).toHaveLength(1);
    expect(chat?.model).toBe('text-only-model');
    expect(imagesOf(chat!)).toEqual([]);
    expect(lastUserText(chat!)).toContain('A basil plant with yellow leaves.');
    expect(lastUserText(chat!)).toContain('is it sick?');
    expect(ledger()).toMatchObject([{ kind: 'vision', images: 1, ok: 1 }, { kind: 'llm' }]);
  });

  it('says so when the vision model fails or is not set up, and asks no chat model', async () => {
    await h.start({ LLM_MODEL: 'text-only-model' });
    h.model.failNext(1, 400);
    h.tg.addFile('p1', JPEG, 'photos/p1.jpg');
    h.tg.photo({ userId: ALLOWED_USER, fileIds: ['p1'] });
    await settled(h, 1);
    expect(replies()).toEqual([VISION_FAILED]);
    expect(ledger()).toMatchObject([{ kind: 'vision', ok: 0 }]);
    await h.close();

    await h.start({
      LLM_MODEL: 'text-only-model',
      VISION_MODEL: 'groq:meta-llama/llama-4-scout-17b-16e-instruct',
    });
    h.tg.addFile('p1', JPEG, 'photos/p1.jpg');
    h.tg.photo({ userId: ALLOWED_USER, fileIds: ['p1'] });
    await settled(h, 1);
    expect(replies()).toEqual([NO_VISION]);
    expect(h.model.requests()).toEqual([]);
  });

  it('answers an album of three photos once, with all three in one request', async () => {
    await h.start();
    for (const id of ['a', 'b', 'c']) h.tg.addFile(id, JPEG, `photos/${id}.jpg`);
    h.tg.album({ userId: ALLOWED_USER, fileIds: [['a'], ['b'], ['c']], caption: 'our garden' });
    await settled(h, 3);

    const chats = h.model.chatRequests();
    expect(chats).toHaveLength(1);
    expect(imagesOf(chats[0]!)).toHaveLength(3);
    expect(lastUserText(chats[0]!)).toContain('our garden');
    expect(replies()).toHaveLength(1);
  });

  it('keeps a reference to the photo in history, not its bytes', async () => {
    await h.start();
    h.tg.addFile('p1', JPEG, 'photos/p1.jpg');
    h.tg.photo({ userId: ALLOWED_USER, fileIds: ['p1'] });
    await settled(h, 1);
    h.tg.text({ userId: ALLOWED_USER, text: 'and now?' });
    await settled(h, 2);

    const second = h.model.chatRequests()[1]!;
    expect(imagesOf(second)).toEqual([]);
    const [stored] = h.rows<{ content: string }>(
      "SELECT content FROM messages WHERE role = 'user'",
    );
    const kept = /media\/[\w-]+\/[\w-]+\.jpg/.exec(stored!.content)?.[0];
    expect(kept).toBeDefined();
    expect(readFileSync(path.join(h.home, kept!))).toEqual(JPEG);
  });
});

describe('documents', () => {
  it('saves a text document in the pack workspace and gives the model its text', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const words = Buffer.from('word,meaning\nhaus,house\nbaum,tree\n');
    h.tg.addFile('d1', words, 'documents/file_1.csv');
    h.tg.addFile('d2', Buffer.from('other,list\n'), 'documents/file_2.csv');
    h.tg.document({
      userId: ALLOWED_USER,
      fileId: 'd1',
      fileName: 'words.csv',
      mimeType: 'text/csv',
    });
    await settled(h, 1);
    h.tg.document({
      userId: ALLOWED_USER,
      fileId: 'd2',
      fileName: 'words.csv',
      mimeType: 'text/csv',
    });
    await settled(h, 2);

    const files = path.join(h.home, 'packs', 'alpha', 'files');
    expect(readFileSync(path.join(files, 'words.csv'))).toEqual(words);
    expect(readFileSync(path.join(files, 'words (2).csv'), 'utf8')).toBe('other,list\n');
    const said = lastUserText(h.model.chatRequests()[0]!);
    expect(said).toContain('words.csv');
    expect(said).toContain('haus,house');
  });
});

describe('a burst of documents', () => {
  it('keeps all 20 documents sent at once, answered in one turn, and never says busy', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    for (let i = 1; i <= 20; i++) {
      h.tg.addFile(`b${i}`, Buffer.from(`note ${i}\n`), `documents/file_${i}.txt`);
      h.tg.document({
        userId: ALLOWED_USER,
        fileId: `b${i}`,
        fileName: `note-${i}.txt`,
        mimeType: 'text/plain',
      });
    }
    await settled(h, 20);

    const files = path.join(h.home, 'packs', 'alpha', 'files');
    for (let i = 1; i <= 20; i++)
      expect(readFileSync(path.join(files, `note-${i}.txt`), 'utf8')).toBe(`note ${i}\n`);
    expect(h.tg.texts(ALLOWED_USER)).not.toContain(BUSY);
    // Files sent together join one turn: one model request carries all twenty.
    expect(h.model.chatRequests()).toHaveLength(1);
    const said = userTexts(h.model.chatRequests()[0]!).join('\n');
    for (let i = 1; i <= 20; i++) expect(said).toContain(`note-${i}.txt`);
  });
});

describe('edits and replies', () => {
  it('replaces a text still in the batch window with its edit', async () => {
    await h.start({ BATCH_WINDOW_MS: '400' });
    h.tg.text({ userId: ALLOWED_USER, text: 'waht is 2+2' });
    h.tg.editedText({ userId: ALLOWED_USER, messageId: 1, text: 'what is 2+2' });
    await settled(h, 2);
    expect(h.model.chatRequests()).toHaveLength(1);
    expect(lastUserText(h.model.chatRequests()[0]!)).toBe('what is 2+2');
  });

  it('answers a later edit as a new message that says it is an edit', async () => {
    await h.start();
    h.tg.text({ userId: ALLOWED_USER, text: 'meet at 5' });
    await settled(h, 1);
    h.tg.editedText({ userId: ALLOWED_USER, messageId: 1, text: 'meet at 6' });
    await settled(h, 2);
    expect(lastUserText(h.model.chatRequests()[1]!)).toBe(`${EDIT_LABEL}\nmeet at 6`);
  });

  it('gives the model the text a reply quotes', async () => {
    await h.start();
    h.tg.text({ userId: ALLOWED_USER, text: 'tell me a plant' });
    await settled(h, 1);
    const [answer] = h.tg.sent(ALLOWED_USER);
    h.tg.text({
      userId: ALLOWED_USER,
      text: 'why this one?',
      replyToMessageId: answer!.result.message_id,
    });
    await settled(h, 2);
    expect(lastUserText(h.model.chatRequests()[1]!)).toBe(
      '[In reply to: "echo: tell me a plant"]\nwhy this one?',
    );
  });
});

describe('everything else', () => {
  it('turns a location and a sticker into text, and says it cannot watch a video', async () => {
    await h.start();
    h.tg.location({ userId: ALLOWED_USER, latitude: 52.52, longitude: 13.405 });
    await settled(h, 1);
    h.tg.sticker({ userId: ALLOWED_USER, emoji: '🌱' });
    await settled(h, 2);
    h.tg.video({ userId: ALLOWED_USER });
    await settled(h, 3);

    const [location, sticker] = h.model.chatRequests().map((r) => lastUserText(r));
    expect(location).toContain('52.52');
    expect(location).toContain('13.405');
    expect(sticker).toContain('🌱');
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(replies().at(-1)).toMatch(/can't watch videos/);
  });
});
