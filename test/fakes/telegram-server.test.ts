import { randomBytes } from 'node:crypto';
import { Api, Bot, GrammyError, InlineKeyboard, InputFile } from 'grammy';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { translateUpdate } from '../../src/telegram/translate.ts';
import { FakeTelegram, TEST_TOKEN } from './telegram-server.ts';

let fake: FakeTelegram;
let api: Api;
const bots: Bot[] = [];

function startBot(): Bot {
  const bot = new Bot(TEST_TOKEN, { client: { apiRoot: fake.apiRoot } });
  bots.push(bot);
  return bot;
}

beforeEach(async () => {
  fake = await FakeTelegram.start();
  api = new Api(TEST_TOKEN, { apiRoot: fake.apiRoot });
});

afterEach(async () => {
  for (const bot of bots.splice(0)) if (bot.isRunning()) await bot.stop();
  await fake.stop();
});

describe('FakeTelegram with the real grammY client', () => {
  it('answers getMe and records sendMessage', async () => {
    const me = await api.getMe();
    expect(me).toMatchObject({ id: 123456, is_bot: true, username: 'satchel_test_bot' });

    const sent = await api.sendMessage(42, 'hello', {
      reply_markup: new InlineKeyboard().text('OK', 'ok'),
      message_thread_id: 7,
    });
    expect(sent).toMatchObject({
      message_id: 1000,
      chat: { id: 42, type: 'private' },
      text: 'hello',
    });
    expect(sent.message_thread_id).toBe(7);
    expect((await api.sendMessage(42, 'again')).message_id).toBe(1001);
    expect((await api.sendMessage(43, 'other chat')).message_id).toBe(1000);

    const call = await fake.waitForCall('sendMessage');
    expect(call.params).toMatchObject({ chat_id: 42, text: 'hello', message_thread_id: 7 });
    expect(call.params.reply_markup.inline_keyboard[0][0]).toEqual({
      text: 'OK',
      callback_data: 'ok',
    });
    expect(fake.texts(42)).toEqual(['hello', 'again']);
    expect(fake.texts()).toEqual(['hello', 'again', 'other chat']);
    expect(fake.calls().map((c) => c.method)).toEqual(['getMe', ...Array(3).fill('sendMessage')]);
  });

  it('rejects a wrong token and unknown methods', async () => {
    const wrong = new Api('999:nope', { apiRoot: fake.apiRoot });
    await expect(wrong.getMe()).rejects.toMatchObject({
      error_code: 401,
      description: 'Unauthorized',
    });
    const raw = api.raw as unknown as Record<string, (p: object) => Promise<unknown>>;
    await expect(raw.noSuchMethod!({})).rejects.toMatchObject({
      error_code: 404,
      description: 'Not Found: method not found',
    });
  });

  it('serves long polls to a running Bot and wakes them on pushUpdate', async () => {
    const bot = startBot();
    bot.command('start', (ctx) => ctx.reply('welcome'));
    bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    void bot.start({ timeout: 30 });

    // A long poll is held open; pushing an update answers it right away.
    await fake.waitForCall('getUpdates', (c) => c.params.timeout === 30);
    await vi.waitFor(() => expect(fake.pendingPolls()).toBe(1));
    const t0 = Date.now();
    const id = fake.text({ userId: 5, text: 'hi there' });
    const reply = await fake.waitForCall('sendMessage');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(reply.params).toMatchObject({ chat_id: 5, text: 'echo: hi there' });

    // The next getUpdates confirms the handled update.
    await fake.waitForOffset(id + 1);
    expect(fake.confirmedOffset()).toBe(id + 1);

    const cmd = fake.text({ userId: 5, text: '/start now' });
    await fake.waitForCall('sendMessage', (c) => c.params.text === 'welcome');
    await fake.waitForOffset(cmd + 1);
    expect(fake.texts(5)).toEqual(['echo: hi there', 'welcome']);

    // bot.stop() aborts the pending long poll; the fake drops it.
    await bot.stop();
    await vi.waitFor(() => expect(fake.pendingPolls()).toBe(0));
  });

  it('delivers the other update builders', async () => {
    fake.addFile('v1', Buffer.from('ogg-bytes'));
    fake.text({
      userId: 1,
      chatId: -100,
      chatType: 'supergroup',
      isForum: true,
      threadId: 9,
      text: 'hey',
    });
    fake.voice({ userId: 1, fileId: 'v1' });
    fake.photo({ userId: 1, fileIds: ['s', 'm', 'l'], caption: 'pic', mediaGroupId: 'g1' });
    fake.document({ userId: 1, fileId: 'd1', fileName: 'a.pdf', mimeType: 'application/pdf' });
    fake.editedText({ userId: 1, messageId: 3, text: 'edited' });
    fake.topicCreated({ userId: 1, chatId: -100, threadId: 55, name: 'Ideas' });
    const sent = await api.sendMessage(1, 'menu');
    fake.callback({ userId: 1, data: 'pick:1' });

    const updates = await api.getUpdates({ offset: 0, timeout: 0 });
    expect(updates.map((u) => u.update_id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const [text, voice, photo, doc, edited, topic, callback] = updates;
    expect(text?.message).toMatchObject({
      message_id: 1,
      text: 'hey',
      message_thread_id: 9,
      is_topic_message: true,
      chat: { id: -100, type: 'supergroup', is_forum: true },
      from: { id: 1, is_bot: false, first_name: 'User' },
    });
    expect(voice?.message?.voice).toMatchObject({ file_id: 'v1', file_size: 9 });
    expect(voice?.message?.chat).toMatchObject({ id: 1, type: 'private' });
    expect(photo?.message?.photo?.map((p) => p.width)).toEqual([90, 320, 800]);
    expect(photo?.message).toMatchObject({ caption: 'pic', media_group_id: 'g1' });
    expect(doc?.message?.document).toMatchObject({
      file_name: 'a.pdf',
      mime_type: 'application/pdf',
    });
    expect(edited?.edited_message).toMatchObject({ message_id: 3, text: 'edited' });
    expect(topic?.message).toMatchObject({
      message_thread_id: 55,
      forum_topic_created: { name: 'Ideas', icon_color: 7322096 },
      chat: { type: 'supergroup', is_forum: true },
    });
    expect(callback?.callback_query).toMatchObject({
      data: 'pick:1',
      from: { id: 1 },
      message: { message_id: sent.message_id, text: 'menu', chat: { id: 1 } },
    });

    // Confirming drops updates below the offset.
    expect(await api.getUpdates({ offset: 7, timeout: 0 })).toHaveLength(1);
    expect(fake.confirmedOffset()).toBe(7);
    expect(await api.getUpdates({ offset: 8, timeout: 0 })).toEqual([]);
  });

  it('delivers media and shared things as Telegram sends them', async () => {
    fake.addFile('a1', Buffer.alloc(4321));
    fake.audio({ userId: 1, fileId: 'a1', fileName: 'talk.mp3', duration: 61, caption: 'c' });
    fake.voice({ userId: 1, fileId: 'v1', duration: 9, mimeType: 'audio/mpeg', caption: 'hi' });
    fake.location({ userId: 1, latitude: 52.5, longitude: 13.4, horizontalAccuracy: 20 });
    fake.venue({ userId: 1, latitude: 1, longitude: 2, title: 'Cafe', address: 'Main St 1' });
    fake.contact({ userId: 1, phoneNumber: '+1', firstName: 'Ada', contactUserId: 5 });
    fake.sticker({ userId: 1, emoji: '👍' });
    fake.video({ userId: 1, caption: 'clip' });
    fake.videoNote({ userId: 1 });
    fake.animation({ userId: 1 });

    const updates = await api.getUpdates({ offset: 0, timeout: 0 });
    const [audio, voice, location, venue, contact, sticker, video, note, gif] = updates.map(
      (u) => u.message,
    );
    expect(audio?.audio).toMatchObject({
      file_id: 'a1',
      file_name: 'talk.mp3',
      mime_type: 'audio/mpeg',
      duration: 61,
      file_size: 4321,
    });
    expect(audio?.caption).toBe('c');
    expect(voice?.voice).toMatchObject({ duration: 9, mime_type: 'audio/mpeg' });
    expect(voice?.caption).toBe('hi');
    expect(location?.location).toEqual({
      latitude: 52.5,
      longitude: 13.4,
      horizontal_accuracy: 20,
    });
    expect(venue?.venue).toMatchObject({ title: 'Cafe', location: { latitude: 1, longitude: 2 } });
    expect(venue?.location).toEqual({ latitude: 1, longitude: 2 });
    expect(contact?.contact).toEqual({ phone_number: '+1', first_name: 'Ada', user_id: 5 });
    expect(sticker?.sticker).toMatchObject({ emoji: '👍', type: 'regular' });
    expect(video?.video).toMatchObject({ mime_type: 'video/mp4' });
    expect(video?.caption).toBe('clip');
    expect(note?.video_note).toMatchObject({ length: 240 });
    expect(gif?.animation?.file_id).toBe(gif?.document?.file_id);

    // What satchel makes of them: the fake and the translator agree on the wire format.
    expect(updates.map((u) => translateUpdate(u, 0)?.kind)).toEqual([
      'voice',
      'voice',
      'text',
      'text',
      'text',
      'text',
      'unsupported',
      'unsupported',
      'unsupported',
    ]);
  });

  it('sends an album as one update per photo, the caption on the first', async () => {
    const ids = fake.album({
      userId: 1,
      fileIds: [
        ['a-s', 'a-l'],
        ['b-s', 'b-l'],
        ['c-s', 'c-l'],
      ],
      caption: 'holiday',
    });
    const second = fake.album({ userId: 1, fileIds: [['d']], groupId: 'mine' });
    const updates = await api.getUpdates({ offset: 0, timeout: 0 });
    expect(updates.map((u) => u.update_id)).toEqual([...ids, ...second]);
    const messages = updates.map((u) => u.message!);
    const group = messages[0]?.media_group_id;
    expect(group).toEqual(expect.any(String));
    expect(messages.slice(0, 3).map((m) => m.media_group_id)).toEqual([group, group, group]);
    expect(messages.map((m) => m.caption)).toEqual(['holiday', undefined, undefined, undefined]);
    expect(messages.map((m) => m.photo?.at(-1)?.file_id)).toEqual(['a-l', 'b-l', 'c-l', 'd']);
    expect(messages[3]?.media_group_id).toBe('mine');
  });

  it('replies to an earlier message of the user or the bot, with an optional quote', async () => {
    fake.text({ userId: 1, text: 'buy milk' });
    const bot = await api.sendMessage(1, 'Noted: buy milk.');
    fake.text({ userId: 1, text: 'and eggs', replyToMessageId: 1 });
    fake.editedText({ userId: 1, messageId: 1, text: 'buy oat milk' });
    fake.voice({ userId: 1, fileId: 'v', replyToMessageId: bot.message_id, quote: 'Noted' });
    fake.text({ userId: 1, text: 'again', replyToMessageId: 1 });

    const [first, reply, edit, voice, again] = await api.getUpdates({ offset: 0, timeout: 0 });
    expect(first?.message?.text).toBe('buy milk'); // the queued original keeps its text
    expect(reply?.message?.reply_to_message).toMatchObject({ message_id: 1, text: 'buy milk' });
    expect(edit?.edited_message?.text).toBe('buy oat milk');
    expect(voice?.message?.reply_to_message).toMatchObject({
      message_id: bot.message_id,
      text: 'Noted: buy milk.',
      from: { is_bot: true },
    });
    expect(voice?.message?.quote).toMatchObject({ text: 'Noted' });
    expect(again?.message?.reply_to_message).toMatchObject({ text: 'buy oat milk' });
    expect(again?.message?.reply_to_message).not.toHaveProperty('reply_to_message');
    expect(() => fake.text({ userId: 1, text: 'x', replyToMessageId: 999 })).toThrow(
      /no message 999/,
    );
  });

  it("replies to a forwarded message, keeping its origin, and to another chat's post", async () => {
    fake.text({ userId: 1, text: 'sale!', forwardedFrom: 'Mallory' });
    fake.text({ userId: 1, text: 'is it real?', replyToMessageId: 1 });
    fake.text({ userId: 1, text: 'see', externalReply: 'News', quote: 'rates rise' });
    const [, reply, external] = await api.getUpdates({ offset: 0, timeout: 0 });
    expect(reply?.message?.reply_to_message).toMatchObject({
      text: 'sale!',
      forward_origin: { type: 'hidden_user', sender_user_name: 'Mallory' },
    });
    expect(external?.message).toMatchObject({
      external_reply: { origin: { type: 'channel', chat: { title: 'News' } } },
      quote: { text: 'rates rise' },
    });
    expect(external?.message).not.toHaveProperty('reply_to_message');
  });

  it('replies in a forum topic to its creation message', async () => {
    fake.topicCreated({ userId: 1, chatId: -100, threadId: 40, name: 'Garden' });
    fake.text({ userId: 1, chatId: -100, threadId: 40, text: 'hi', replyToMessageId: 40 });
    const [, inTopic] = await api.getUpdates({ offset: 0, timeout: 0 });
    expect(inTopic?.message).toMatchObject({
      message_thread_id: 40,
      is_topic_message: true,
      reply_to_message: { message_id: 40, forum_topic_created: { name: 'Garden' } },
    });
    expect(translateUpdate(inTopic, 0)).toMatchObject({ topicName: 'Garden' });
    expect(translateUpdate(inTopic, 0)).not.toHaveProperty('quote');
  });

  it('serves files slowly, with a different reported size, or expired', async () => {
    const bytes = randomBytes(2000);
    fake.addFile('slow', bytes, { filePath: 'voice/file_1.oga', bytesPerSecond: 40_000 });
    fake.addFile('crawl', randomBytes(100_000), { bytesPerSecond: 10_000 }); // 10 s in full
    fake.addFile('unsized', Buffer.from('abc'), { reportedSize: null, contentLength: false });
    fake.addFile('old', Buffer.from('abc'), { expired: true });
    fake.addFile('late', Buffer.from('abc'), { delayMs: 60_000 });

    const slow = await fetch(`${fake.apiRoot}/file/bot${TEST_TOKEN}/voice/file_1.oga`);
    expect(Buffer.from(await slow.arrayBuffer()).equals(bytes)).toBe(true);
    expect(fake.completedDownloads()).toEqual(['voice/file_1.oga']);

    // Streamed: the first part arrives long before the rest; a client that leaves stops it.
    const crawl = await fetch(`${fake.apiRoot}/file/bot${TEST_TOKEN}/files/crawl`);
    const reader = crawl.body!.getReader();
    expect((await reader.read()).value!.length).toBeLessThan(100_000);
    await reader.cancel();

    expect(await api.getFile('unsized')).not.toHaveProperty('file_size');
    const unsized = await fetch(`${fake.apiRoot}/file/bot${TEST_TOKEN}/files/unsized`);
    expect(unsized.headers.get('content-length')).toBeNull();
    expect(await unsized.text()).toBe('abc');

    expect(await api.getFile('old')).toMatchObject({ file_path: 'files/old' });
    expect((await fetch(`${fake.apiRoot}/file/bot${TEST_TOKEN}/files/old`)).status).toBe(404);

    // A delayed download has started (it is recorded) but not answered.
    let answered = false;
    const controller = new AbortController();
    const late = fetch(`${fake.apiRoot}/file/bot${TEST_TOKEN}/files/late`, {
      signal: controller.signal,
    }).then(() => {
      answered = true;
    });
    await fake.waitForDownload('files/late');
    await api.getMe(); // a round trip through the same server, for good measure
    expect(answered).toBe(false);
    controller.abort();
    await expect(late).rejects.toThrow();
    expect(fake.downloads()).toEqual([
      'voice/file_1.oga',
      'files/crawl',
      'files/unsized',
      'files/late',
    ]);
    expect(fake.completedDownloads()).toEqual(['voice/file_1.oga', 'files/unsized']);
  });

  it('parses multipart uploads: sendPhoto with an InputFile from a Buffer', async () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x0d, 0x0a, 0x2d, 0x2d, 1, 2, 3]);
    const msg = await api.sendPhoto(77, new InputFile(bytes, 'cat.jpg'), {
      caption: '12345',
      reply_markup: new InlineKeyboard().text('Like', 'like'),
      message_thread_id: 3,
    });
    expect(msg).toMatchObject({ chat: { id: 77 }, caption: '12345', message_thread_id: 3 });
    expect(msg.photo?.[0]?.file_size).toBe(bytes.length);

    const call = await fake.waitForCall('sendPhoto');
    expect(call.params).toMatchObject({
      chat_id: 77,
      caption: '12345',
      message_thread_id: 3,
      photo: { filename: 'cat.jpg', size: bytes.length },
      reply_markup: { inline_keyboard: [[{ text: 'Like', callback_data: 'like' }]] },
    });
    expect(fake.sent(77).map((c) => c.method)).toEqual(['sendPhoto']);

    await api.sendVoice(77, new InputFile(Buffer.from('OggS'))); // no filename: grammY names it
    expect((await fake.waitForCall('sendVoice')).params.voice).toEqual({
      filename: 'voice.ogg',
      size: 4,
      bytes: Buffer.from('OggS'),
    });
  });

  it('injects faults: 429 with retry_after, 400 by predicate, 5xx', async () => {
    fake.fail('sendMessage', { status: 429, retryAfter: 3 });
    const err = await api.sendMessage(1, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrammyError);
    expect(err).toMatchObject({
      error_code: 429,
      description: 'Too Many Requests: retry after 3',
      parameters: { retry_after: 3 },
    });
    expect(fake.calls('sendMessage')[0]).toMatchObject({ failed: true });
    await api.sendMessage(1, 'x'); // only the next call failed

    fake.failWhen('sendMessage', (p) => p.parse_mode === 'HTML', {
      status: 400,
      description: "Bad Request: can't parse entities",
    });
    await expect(api.sendMessage(1, '<b', { parse_mode: 'HTML' })).rejects.toMatchObject({
      error_code: 400,
      description: "Bad Request: can't parse entities",
    });
    await api.sendMessage(1, '<b');
    expect(fake.texts(1)).toEqual(['x', '<b']); // failed calls are not "sent"

    fake.failAlways('sendChatAction', { status: 502 });
    for (let i = 0; i < 2; i++) {
      await expect(api.sendChatAction(1, 'typing')).rejects.toMatchObject({
        error_code: 502,
        description: 'Bad Gateway',
      });
    }
    fake.clearFaults();
    expect(await api.sendChatAction(1, 'typing')).toBe(true);
  });

  it('refuses every call into a deleted topic, and only there', async () => {
    await api.sendMessage(-100777, 'before', { message_thread_id: 10 });
    fake.deleteTopic(-100777, 10);
    const gone = { error_code: 400, description: 'Bad Request: message thread not found' };
    await expect(
      api.sendMessage(-100777, 'after', { message_thread_id: 10 }),
    ).rejects.toMatchObject(gone);
    await expect(
      api.sendChatAction(-100777, 'typing', { message_thread_id: 10 }),
    ).rejects.toMatchObject(gone);
    await api.sendMessage(-100777, 'other topic', { message_thread_id: 11 });
    await api.sendMessage(-100777, 'general');
    expect(fake.texts(-100777)).toEqual(['before', 'other topic', 'general']);
    expect(fake.calls('sendMessage').map((c) => Boolean(c.failed))).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it('editMessageText: edits, not-modified and not-found', async () => {
    const m = await api.sendMessage(9, 'draft');
    const edited = await api.editMessageText(9, m.message_id, 'final');
    expect(edited).toMatchObject({ message_id: m.message_id, text: 'final' });
    await expect(api.editMessageText(9, m.message_id, 'final')).rejects.toMatchObject({
      error_code: 400,
      description: expect.stringContaining('message is not modified'),
    });
    await expect(api.editMessageText(9, 1, 'x')).rejects.toMatchObject({
      description: 'Bad Request: message to edit not found',
    });
    expect(fake.calls('editMessageText').map((c) => Boolean(c.failed))).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('getFile + download', async () => {
    fake.addFile('voice-1', Buffer.from('opus data'), 'voice/file_1.oga');
    const file = await api.getFile('voice-1');
    expect(file).toMatchObject({ file_id: 'voice-1', file_size: 9, file_path: 'voice/file_1.oga' });
    const res = await fetch(`${fake.apiRoot}/file/bot${TEST_TOKEN}/${file.file_path}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('opus data');
    expect(fake.downloads()).toEqual(['voice/file_1.oga']);

    await expect(api.getFile('nope')).rejects.toMatchObject({
      error_code: 400,
      description: 'Bad Request: invalid file_id',
    });
  });

  it('detects an aborted long poll and delays responses', async () => {
    const controller = new AbortController();
    const poll = api.getUpdates(
      { offset: 1, timeout: 20 },
      controller.signal as Parameters<Api['getUpdates']>[1],
    );
    await vi.waitFor(() => expect(fake.pendingPolls()).toBe(1));
    controller.abort();
    await expect(poll).rejects.toThrow();
    await vi.waitFor(() => expect(fake.pendingPolls()).toBe(0));

    // A poll with a timeout and no updates ends with [] after the timeout.
    expect(await api.getUpdates({ offset: 1, timeout: 1 })).toEqual([]);

    fake.delay('sendMessage', 300);
    const t0 = Date.now();
    await api.sendMessage(1, 'slow');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('waitForCall rejects with a list of recorded calls', async () => {
    await api.sendMessage(1, 'only this');
    await expect(fake.waitForCall('sendPhoto', undefined, 100)).rejects.toThrow(
      /sendPhoto.*sendMessage\(1 "only this"\)/,
    );
  });
});
