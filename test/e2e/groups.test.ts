import { describe, expect, it, vi } from 'vitest';
import { ALLOWED_UPDATES } from '../../src/telegram/update-supplier.ts';
import { lastUserText, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

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
