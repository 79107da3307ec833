import { describe, expect, it, vi } from 'vitest';
import { ALLOWED_UPDATES } from '../../src/telegram/update-supplier.ts';
import { lastUserText, userTexts } from '../fakes/model-server.ts';
import {
  ALLOWED_USER,
  FIXTURE_PACKS,
  fixturePacks,
  harnessPerTest,
  STRANGER,
  settled,
} from '../support/harness.ts';

const h = harnessPerTest();
const BOB = 222;
const GROUP = -100500;
const inGroup = { chatId: GROUP, chatType: 'supergroup' as const };
const BOT = '@satchel_test_bot';

describe('groups (SPEC §12)', () => {
  it('answers a mention and a reply to the bot; a plain message costs nothing and is not stored', async () => {
    await h.start();
    h.model.enqueue({ text: 'Hello group.' }, { text: 'Still here.' });

    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: 'lunch at noon, everyone?' });
    await settled(h, 1);
    expect(h.model.chatRequests()).toHaveLength(0);
    expect(h.tg.calls('sendMessage')).toHaveLength(0);
    expect(h.rows('SELECT 1 FROM messages')).toHaveLength(0);

    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: `${BOT} say hello` });
    const hello = await h.tg.waitForCall('sendMessage');
    await settled(h, 2);
    expect(lastUserText(h.model.chatRequests()[0]!)).toBe(`User: ${BOT} say hello`);

    h.tg.text({
      userId: ALLOWED_USER,
      ...inGroup,
      text: 'and again',
      replyToMessageId: hello.result.message_id,
    });
    await settled(h, 3);
    expect(h.tg.texts(GROUP)).toEqual(['Hello group.', 'Still here.']);
    expect(h.model.chatRequests()).toHaveLength(2);
  });

  it('answers every allowed message with GROUP_REPLY=all', async () => {
    await h.start({ GROUP_REPLY: 'all' });
    h.model.enqueue({ text: 'Noted.' });
    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: 'lunch at noon' });
    await settled(h, 1);
    expect(h.tg.texts(GROUP)).toEqual(['Noted.']);
  });

  it('ignores a command addressed to another bot, and handles its own and a bare one', async () => {
    await h.start();
    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: '/help@otherbot' });
    await settled(h, 1);
    expect(h.tg.calls('sendMessage')).toHaveLength(0);

    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: '/help@satchel_test_bot' });
    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: '/help' });
    await settled(h, 3);
    expect(h.tg.calls('sendMessage')).toHaveLength(2);
    expect(h.model.chatRequests()).toHaveLength(0);
  });

  it('gives the model each sender’s name when two people share a batch', async () => {
    await h.start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${BOB}`, BATCH_WINDOW_MS: '600' });
    h.tg.nameUser(ALLOWED_USER, 'Alice');
    h.tg.nameUser(BOB, 'Bob');
    h.model.enqueue({ text: 'Both noted.' });
    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: `${BOT} I want pizza` });
    h.tg.text({ userId: BOB, ...inGroup, text: `${BOT} I want sushi` });
    await settled(h, 2);

    expect(h.model.chatRequests()).toHaveLength(1);
    // One user message for the batch, each text under its sender's name.
    expect(userTexts(h.model.chatRequests()[0]!)).toEqual([
      `Alice: ${BOT} I want pizza\nBob: ${BOT} I want sushi`,
    ]);
  });

  it('waits for the person ask_user asked; another person hears whom it is for', async () => {
    await h.start({
      SATCHEL_PACKS: fixturePacks(['alpha']),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${BOB}`,
    });
    h.tg.nameUser(ALLOWED_USER, 'Alice');
    h.tg.nameUser(BOB, 'Bob');
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'ask_user', arguments: { question: 'Water?', options: ['Yes', 'No'] } },
        ],
      },
      { text: 'Watering.' },
    );
    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: `${BOT} check the fern` });
    const question = await h.tg.waitForCall('sendMessage', (c) => Boolean(c.params.reply_markup));
    const [yes] = question.params.reply_markup.inline_keyboard.flat();
    const messageId = question.result.message_id;

    h.tg.callback({ userId: BOB, chatId: GROUP, messageId, data: yes.callback_data });
    const refused = await h.tg.waitForCall('answerCallbackQuery');
    expect(refused.params.text).toBe('This question is for Alice.');
    expect(h.model.chatRequests()).toHaveLength(1);

    h.tg.callback({ userId: ALLOWED_USER, chatId: GROUP, messageId, data: yes.callback_data });
    await settled(h, 3);
    expect(h.tg.texts(GROUP).at(-1)).toBe('Watering.');
    expect(h.model.chatRequests()).toHaveLength(2);
  });

  it('sets the acknowledgement reaction while a turn runs and clears it after the answer', async () => {
    await h.start();
    h.model.enqueue({ text: 'Done.' });
    h.say('do it');
    await settled(h, 1);
    const reactions = await h.tg.waitForCalls('setMessageReaction', 2);
    expect(reactions.map((c) => c.params)).toEqual([
      { chat_id: ALLOWED_USER, message_id: 1, reaction: [{ type: 'emoji', emoji: '👀' }] },
      { chat_id: ALLOWED_USER, message_id: 1, reaction: [] },
    ]);
    const answer = h.tg.calls('sendMessage')[0]!;
    expect(answer.at).toBeLessThanOrEqual(reactions[1]!.at);
  });

  it('answers as usual when setMessageReaction fails, and sets none with ACK_REACTION empty', async () => {
    await h.start();
    h.tg.failAlways('setMessageReaction', {
      status: 400,
      description: 'Bad Request: REACTION_INVALID',
    });
    h.model.enqueue({ text: 'Done anyway.' });
    h.say('do it');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Done anyway.']);

    await h.start({ ACK_REACTION: '' });
    h.model.enqueue({ text: 'Quiet.' });
    h.say('do it');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Quiet.']);
    expect(h.tg.calls('setMessageReaction')).toHaveLength(0);
  });

  it('takes a reaction to its answer into the next turn as a note, starting no turn', async () => {
    await h.start();
    h.model.enqueue(
      { text: 'Here is the fern care plan for spring.' },
      { text: 'Glad you like it.' },
    );
    h.say('plan please');
    const answer = await h.tg.waitForCall('sendMessage');
    await settled(h, 1);

    h.tg.reaction({ userId: ALLOWED_USER, messageId: answer.result.message_id, emoji: '👍' });
    await vi.waitFor(() => expect(h.logs('reaction_noted')).toHaveLength(1));
    expect(h.model.chatRequests()).toHaveLength(1);

    h.say('thanks');
    await settled(h, 3);
    expect(lastUserText(h.model.chatRequests()[1]!)).toBe(
      '[reacted 👍 to: "Here is the fern care plan for spring."]\nthanks',
    );
  });

  it('ignores a reaction from someone not on the allowlist, with a debug line and no reply', async () => {
    await h.start();
    h.model.enqueue({ text: 'Hello group.' }, { text: 'Still here.' });
    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: `${BOT} say hello` });
    const hello = await h.tg.waitForCall('sendMessage');
    await settled(h, 1);

    const messageId = hello.result.message_id;
    h.tg.reaction({ userId: STRANGER, chatId: GROUP, messageId, emoji: '👎' });
    await settled(h, 2);
    expect(h.logs('tg_auth_denied')).toMatchObject([
      { level: 20, userId: STRANGER, chatId: GROUP, kind: 'reaction' },
    ]);
    expect(h.logs('reaction_noted')).toHaveLength(0);

    h.tg.text({ userId: ALLOWED_USER, ...inGroup, text: `${BOT} anyone there?` });
    await settled(h, 3);
    expect(lastUserText(h.model.chatRequests()[1]!)).toBe(`User: ${BOT} anyone there?`);

    // In a private chat too, and it spends no reply: the stranger's first text is still told.
    h.tg.reaction({ userId: STRANGER, messageId: 1, emoji: '👍' });
    await settled(h, 4);
    h.tg.text({ userId: STRANGER, text: 'hello?' });
    await settled(h, 5);
    expect(h.tg.texts(STRANGER)).toEqual([expect.stringContaining('give this pairing code')]);
    expect(h.logs('tg_auth_denied').map((l) => [l.kind, l.level])).toEqual([
      ['reaction', 20],
      ['reaction', 20],
      ['text', 40],
    ]);
    expect(h.model.chatRequests()).toHaveLength(2);
  });

  it('asks Telegram for exactly the update types it handles', async () => {
    await h.start();
    const poll = await h.tg.waitForCall('getUpdates');
    expect(poll.params.allowed_updates).toEqual([
      'message',
      'edited_message',
      'callback_query',
      'message_reaction',
    ]);
    expect(ALLOWED_UPDATES).toEqual(poll.params.allowed_updates);
  });
});

describe('groups and topics that change (SPEC §12)', () => {
  const FORUM = -100777;
  const plantJob = (chatId: number, threadId: number | null) =>
    h.exec(
      `INSERT INTO jobs (id, pack, source, kind, platform, chat_id, thread_id, schedule, prompt, next_run_at, created_at)
       VALUES ('j1', 'alpha', 'tool', 'cron', 'tg', ?, ?, '0 9 * * *', 'water the fern', ?, ?)`,
      String(chatId),
      threadId === null ? null : String(threadId),
      Date.now() + 3_600_000,
      Date.now(),
    );

  it('unbinds a topic renamed away from its pack; the next prompt there gets the picker', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.tg.topicCreated({ userId: ALLOWED_USER, chatId: FORUM, threadId: 10, name: 'alpha garden' });
    await settled(h, 1);
    expect(h.rows('SELECT active_pack FROM conversation_routes')).toEqual([
      { active_pack: 'alpha' },
    ]);

    h.tg.topicRenamed({ userId: ALLOWED_USER, chatId: FORUM, threadId: 10, name: 'Random' });
    await settled(h, 2);
    expect(h.rows('SELECT active_pack FROM conversation_routes')).toEqual([{ active_pack: null }]);
    expect(h.logs('topic_unbound')).toHaveLength(1);

    const inTopic = { chatId: FORUM, chatType: 'supergroup' as const, isForum: true, threadId: 10 };
    h.tg.text({ userId: ALLOWED_USER, ...inTopic, text: `${BOT} hello?` });
    const picker = await h.tg.waitForCall('sendMessage');
    expect(picker.params).toMatchObject({
      chat_id: FORUM,
      message_thread_id: 10,
      text: 'Which pack should answer here?',
    });
    expect(h.model.chatRequests()).toHaveLength(0);
  });

  it('pauses the jobs of a closed topic', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    plantJob(FORUM, 10);
    h.tg.service({ userId: ALLOWED_USER, chatId: FORUM, threadId: 10, closed: true });
    await settled(h, 1);
    expect(h.rows('SELECT enabled FROM jobs')).toEqual([{ enabled: 0 }]);
    expect(h.logs('topic_closed')[0]).toMatchObject({ pausedJobs: 1 });
    expect(h.tg.calls('sendMessage')).toHaveLength(0);
  });

  it('carries bindings, sessions and jobs over when a group migrates to a supergroup', async () => {
    const OLD = -4242;
    const NEW = -1004242;
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.setDefault((req) => ({ text: `re: ${lastUserText(req)}` }));
    h.tg.text({
      userId: ALLOWED_USER,
      chatId: OLD,
      chatType: 'group',
      text: `${BOT} my fern is Bob`,
    });
    await settled(h, 1);
    plantJob(OLD, null);

    h.tg.service({ userId: ALLOWED_USER, chatId: OLD, migrateTo: NEW });
    await settled(h, 2);
    h.tg.text({
      userId: ALLOWED_USER,
      chatId: NEW,
      chatType: 'supergroup',
      text: `${BOT} who is Bob?`,
    });
    await settled(h, 3);

    // The same session goes on in the new chat: the model sees the earlier message.
    expect(userTexts(h.model.chatRequests()[1]!)).toEqual([
      `User: ${BOT} my fern is Bob`,
      `User: ${BOT} who is Bob?`,
    ]);
    expect(h.rows('SELECT address, chat_id, active_pack FROM conversation_routes')).toEqual([
      { address: `tg:${NEW}`, chat_id: String(NEW), active_pack: 'alpha' },
    ]);
    expect(h.rows('SELECT key FROM sessions')).toEqual([{ key: `tg:${NEW}:alpha` }]);
    // The planted job and the pack's manifest job both deliver to the new chat now.
    expect(h.rows('SELECT id, chat_id FROM jobs WHERE chat_id = ?', String(OLD))).toEqual([]);
    expect(h.rows("SELECT chat_id FROM jobs WHERE id = 'j1'")).toEqual([{ chat_id: String(NEW) }]);
    expect(h.rows("SELECT manifest_key FROM jobs WHERE source = 'manifest'")).toEqual([
      { manifest_key: `alpha:water-check:tg:${NEW}` },
    ]);
    expect(h.logs('chat_moved')).toHaveLength(1);
  });
});
