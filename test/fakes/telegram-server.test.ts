import { Api, Bot, GrammyError, InlineKeyboard, InputFile } from 'grammy';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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
