import { describe, expect, it } from 'vitest';
import { translateUpdate } from '../../src/telegram/translate.ts';
import { parseUpdate } from '../../src/telegram/update-schema.ts';

const AT = 1_700_000_000_000;
const chat = { id: 111, type: 'private', first_name: 'U' };
const from = { id: 111, is_bot: false, first_name: 'U' };
const message = (extra: object) => ({ message_id: 5, date: 0, chat, from, ...extra });

describe('translateUpdate', () => {
  it.each([
    ['null', null],
    ['a number', 42],
    ['a string', 'garbage'],
    ['an empty object', {}],
    ['a message that is a string', { update_id: 1, message: 'garbage' }],
    ['a message that is null', { update_id: 1, message: null }],
    ['a message with no chat', { update_id: 1, message: { message_id: 5, from, text: 'hi' } }],
    ['a chat without an id', { update_id: 1, message: message({ chat: { type: 'private' } }) }],
    ['a sender without an id', { update_id: 1, message: message({ from: {}, text: 'hi' }) }],
    [
      'a callback with no sender',
      { update_id: 1, callback_query: { id: 'c', data: 'd', message: message({}) } },
    ],
    ['an edit with no chat', { update_id: 1, edited_message: { message_id: 1, from, text: 'x' } }],
  ])('never throws, and translates nothing, for %s', (_label, raw) => {
    expect(() => translateUpdate(raw, AT)).not.toThrow();
    expect(translateUpdate(raw, AT)).toBeUndefined();
  });

  it('reads an odd optional field as absent instead of failing the message', () => {
    const raw = {
      update_id: 2,
      message: message({ text: 'hello', entities: 'nonsense', caption: 7, photo: [null] }),
    };
    expect(translateUpdate(raw, AT)).toMatchObject({ kind: 'text', text: 'hello', senderId: 111 });
    const photo = { update_id: 3, message: message({ photo: [null], caption: 'x' }) };
    expect(translateUpdate(photo, AT)).toBeUndefined();
  });

  it('translates the kinds it handles', () => {
    expect(
      translateUpdate(
        {
          update_id: 4,
          message: message({
            text: '/Help@satchel_bot now',
            entities: [{ type: 'bot_command', offset: 0, length: 17 }],
          }),
        },
        AT,
      ),
    ).toEqual({
      updateIds: [4],
      address: { platform: 'tg', chatId: 111 },
      chatType: 'private',
      senderId: 111,
      messageId: 5,
      receivedAt: AT,
      kind: 'command',
      command: 'help',
      args: 'now',
    });
    expect(
      translateUpdate(
        { update_id: 5, callback_query: { id: 'cb1', from, data: 'pick:a', message: message({}) } },
        AT,
      ),
    ).toMatchObject({ kind: 'callback', callbackId: 'cb1', data: 'pick:a', senderId: 111 });
    const forum = { id: -100, type: 'supergroup', title: 'G', is_forum: true };
    expect(
      translateUpdate(
        {
          update_id: 6,
          message: message({
            chat: forum,
            message_thread_id: 9,
            is_topic_message: true,
            media_group_id: 'g',
            photo: [{ file_id: 'small' }, { file_id: 'big', file_size: 10 }],
            reply_to_message: { forum_topic_created: { name: 'Garden' } },
          }),
        },
        AT,
      ),
    ).toMatchObject({
      kind: 'album',
      address: { platform: 'tg', chatId: -100, threadId: 9 },
      topicName: 'Garden',
      isForum: true,
      photos: [{ fileId: 'big', size: 10 }],
    });
  });

  it('ignores, without calling it malformed, an update kind it does not handle', () => {
    const raw = { update_id: 7, my_chat_member: { chat } };
    expect(parseUpdate(raw)).toMatchObject({ ok: true });
    expect(translateUpdate(raw, AT)).toBeUndefined();
  });
});

describe('parseUpdate', () => {
  it('names the first bad field of a malformed update', () => {
    expect(parseUpdate({ update_id: 1, message: { message_id: 1, text: 'x' } })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^message\.chat: /),
    });
    expect(parseUpdate({ message: {} })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^update_id: /),
    });
    expect(parseUpdate('garbage')).toMatchObject({ ok: false, problem: expect.any(String) });
  });
});
