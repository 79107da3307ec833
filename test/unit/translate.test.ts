import { describe, expect, it } from 'vitest';
import { translateParsed, translateUpdate } from '../../src/telegram/translate.ts';
import { parseUpdate } from '../../src/telegram/update-schema.ts';

const AT = 1_700_000_000_000;
const chat = { id: 111, type: 'private', first_name: 'U' };
const from = { id: 111, is_bot: false, first_name: 'U' };
const message = (extra: object) => ({ message_id: 5, date: 0, chat, from, ...extra });
/** What the event of `message` in update `updateId` carries, whatever its kind. */
const privateFromU = (updateId: number) => ({
  origin: { platform: 'tg', keys: [`update:${updateId}`] },
  address: { platform: 'tg', chatId: '111' },
  chatType: 'private',
  senderId: '111',
  senderName: 'U',
  messageId: '5',
  receivedAt: AT,
});

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
    expect(translateUpdate(raw, AT)).toMatchObject({
      kind: 'text',
      text: 'hello',
      senderId: '111',
    });
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
      ...privateFromU(4),
      kind: 'command',
      command: 'help',
      args: 'now',
    });
    expect(
      translateUpdate(
        { update_id: 5, callback_query: { id: 'cb1', from, data: 'pick:a', message: message({}) } },
        AT,
      ),
    ).toMatchObject({ kind: 'callback', callbackId: 'cb1', data: 'pick:a', senderId: '111' });
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
      address: { platform: 'tg', chatId: '-100', threadId: '9' },
      topicName: 'Garden',
      isForum: true,
      photos: [{ file: { fileId: 'big', size: 10 }, updateId: 6 }],
    });
  });

  it('ignores, without calling it malformed, an update kind it does not handle', () => {
    const raw = { update_id: 7, my_chat_member: { chat } };
    expect(parseUpdate(raw)).toMatchObject({ ok: true });
    expect(translateUpdate(raw, AT)).toBeUndefined();
  });
});

const update = (extra: object, updateId = 10) => ({ update_id: updateId, message: message(extra) });
const translate = (extra: object) => translateUpdate(update(extra), AT);
const forum = { id: -100, type: 'supergroup', title: 'G', is_forum: true };

describe('translateUpdate: media', () => {
  it('takes a voice note with its caption, duration and type', () => {
    const voice = { file_id: 'v1', file_unique_id: 'u', duration: 4, mime_type: 'audio/ogg' };
    expect(translate({ voice: { ...voice, file_size: 900 } })).toMatchObject({
      kind: 'voice',
      file: { fileId: 'v1', size: 900 },
      durationSec: 4,
      mimeType: 'audio/ogg',
      caption: '',
    });
    const event = translate({ voice, caption: 'listen' });
    expect(event).toMatchObject({ kind: 'voice', caption: 'listen' });
    expect(event).not.toHaveProperty('fileName');
  });

  it('takes an audio file as voice, with its file name', () => {
    const audio = {
      file_id: 'a1',
      duration: 125,
      mime_type: 'audio/mpeg',
      file_name: 'talk.mp3',
      file_size: 2_000_000,
    };
    expect(translate({ audio, caption: 'the talk' })).toMatchObject({
      kind: 'voice',
      file: { fileId: 'a1', size: 2_000_000 },
      durationSec: 125,
      mimeType: 'audio/mpeg',
      fileName: 'talk.mp3',
      caption: 'the talk',
    });
  });

  it('takes the largest size of a photo, whatever the order', () => {
    const photo = [
      { file_id: 'mid', width: 800, height: 600, file_size: 50 },
      { file_id: 'big', width: 1280, height: 960, file_size: 90 },
      { file_id: 'small', width: 90, height: 67, file_size: 5 },
    ];
    expect(translate({ photo, caption: 'look' })).toEqual({
      ...privateFromU(10),
      kind: 'photo',
      file: { fileId: 'big', size: 90 },
      caption: 'look',
    });
    // Without dimensions, Telegram's order (smallest first) decides.
    expect(translate({ photo: [{ file_id: 's' }, { file_id: 'l' }] })).toMatchObject({
      kind: 'photo',
      file: { fileId: 'l' },
      caption: '',
    });
  });

  it('takes a photo of an album as one album item that names its update', () => {
    const photo = [
      { file_id: 'small', width: 90, height: 90 },
      { file_id: 'big', width: 900, height: 900 },
    ];
    const first = translateUpdate(update({ photo, media_group_id: 'g7', caption: 'trip' }, 31), AT);
    expect(first).toMatchObject({
      kind: 'album',
      groupId: 'g7',
      origin: { platform: 'tg', keys: ['update:31'] },
      photos: [{ file: { fileId: 'big' }, updateId: 31 }],
      caption: 'trip',
    });
    const second = translateUpdate(update({ photo, media_group_id: 'g7' }, 32), AT);
    expect(second).toMatchObject({ kind: 'album', caption: '', photos: [{ updateId: 32 }] });
  });

  it('takes a document with its name, type and size', () => {
    const document = {
      file_id: 'd1',
      file_name: 'notes.md',
      mime_type: 'text/markdown',
      file_size: 12,
    };
    expect(translate({ document, caption: 'mine' })).toMatchObject({
      kind: 'document',
      file: { fileId: 'd1', size: 12 },
      name: 'notes.md',
      mimeType: 'text/markdown',
      caption: 'mine',
    });
    expect(translate({ document: { file_id: 'd2' } })).toMatchObject({
      name: 'file',
      mimeType: 'application/octet-stream',
      caption: '',
    });
  });

  it('names videos, video notes and GIFs as unsupported (a GIF is also a document)', () => {
    const file = { file_id: 'f', duration: 3 };
    expect(translate({ video: file, caption: 'watch' })).toMatchObject({
      kind: 'unsupported',
      what: 'video',
    });
    expect(translate({ video_note: file })).toMatchObject({
      kind: 'unsupported',
      what: 'video note',
    });
    const gif = { animation: file, document: { file_id: 'f', file_name: 'a.mp4' } };
    expect(translate(gif)).toMatchObject({ kind: 'unsupported', what: 'GIF' });
  });

  it('with local files, takes a video as a document: its own name, else one made up', () => {
    const local = (extra: object) => {
      const parsed = parseUpdate(update(extra));
      return parsed.ok ? translateParsed(parsed.update, AT, undefined, { localFiles: true }) : 0;
    };
    const video = { file_id: 'f', duration: 3, file_size: 900, mime_type: 'video/quicktime' };
    expect(local({ video, caption: 'watch' })).toMatchObject({
      kind: 'document',
      file: { fileId: 'f', size: 900 },
      name: expect.stringMatching(/^video-\d+\.mov$/),
      mimeType: 'video/quicktime',
      caption: 'watch',
    });
    const named = { file_id: 'f', duration: 3, file_name: 'hike.mp4' };
    expect(local({ video: named })).toMatchObject({ name: 'hike.mp4', mimeType: 'video/mp4' });
    // Round videos and GIFs are still refused.
    expect(local({ video_note: video })).toMatchObject({ kind: 'unsupported' });
    expect(local({ animation: video })).toMatchObject({ kind: 'unsupported', what: 'GIF' });
  });

  it('ignores kinds it does not handle: polls, dice, games', () => {
    expect(translate({ poll: { id: 'p', question: 'q', options: [] } })).toBeUndefined();
    expect(translate({ dice: { emoji: '🎲', value: 3 } })).toBeUndefined();
    expect(translate({ game: { title: 'g' } })).toBeUndefined();
    expect(translate({})).toBeUndefined();
  });
});

describe('translateUpdate: shared things become text', () => {
  it.each([
    [
      'a location',
      { location: { latitude: 52.520008, longitude: 13.404954 } },
      '[Location shared: 52.520008, 13.404954]',
    ],
    [
      'a live location with its accuracy',
      {
        location: { latitude: -33.9, longitude: 18.4, horizontal_accuracy: 24.6, live_period: 900 },
      },
      '[Live location shared: -33.9, 18.4, accuracy 25 m]',
    ],
    [
      'a venue (which also carries its location)',
      {
        venue: {
          location: { latitude: 48.8584, longitude: 2.2945 },
          title: 'Eiffel Tower',
          address: 'Champ de Mars, Paris',
        },
        location: { latitude: 48.8584, longitude: 2.2945 },
      },
      '[Venue shared: Eiffel Tower, Champ de Mars, Paris (48.8584, 2.2945)]',
    ],
    [
      'a contact',
      {
        contact: {
          phone_number: '+4915112345678',
          first_name: 'Ada',
          last_name: 'Lovelace',
          user_id: 77,
        },
      },
      '[Contact shared: Ada Lovelace, phone +4915112345678, Telegram user id 77]',
    ],
    [
      'a contact without last name or account',
      { contact: { phone_number: '+1 555 0100', first_name: 'Bob' } },
      '[Contact shared: Bob, phone +1 555 0100]',
    ],
    ['a sticker', { sticker: { file_id: 's', emoji: '😂' } }, '[Sticker: 😂]'],
    ['a sticker without emoji', { sticker: { file_id: 's' } }, '[Sticker]'],
    [
      'a malformed venue, as the location it also carries',
      { venue: { title: 'No address' }, location: { latitude: 1, longitude: 2 } },
      '[Location shared: 1, 2]',
    ],
  ])('%s', (_label, extra, text) => {
    expect(translate(extra)).toMatchObject({ kind: 'text', text, senderId: '111', messageId: '5' });
  });
});

describe('translateUpdate: edits', () => {
  it('takes an edited text, naming the edited message', () => {
    const raw = {
      update_id: 40,
      edited_message: message({ message_id: 17, edit_date: 1, text: 'meet at 6 instead' }),
    };
    expect(translateUpdate(raw, AT)).toMatchObject({
      kind: 'edited',
      text: 'meet at 6 instead',
      messageId: '17',
      origin: { platform: 'tg', keys: ['update:40'] },
    });
  });

  it('ignores an edited caption or media', () => {
    const caption = {
      update_id: 41,
      edited_message: message({ photo: [{ file_id: 'p' }], caption: 'new' }),
    };
    expect(translateUpdate(caption, AT)).toBeUndefined();
    const live = {
      update_id: 42,
      edited_message: message({ location: { latitude: 1, longitude: 2 } }),
    };
    expect(translateUpdate(live, AT)).toBeUndefined();
  });
});

describe('translateUpdate: quotes', () => {
  const reply = (target: object, extra: object = {}) =>
    translate({
      text: 'what about this?',
      reply_to_message: { message_id: 3, date: 0, chat, ...target },
      ...extra,
    });

  it('quotes the text of the message replied to, trimmed', () => {
    expect(reply({ from, text: '  buy milk\n' })).toMatchObject({
      kind: 'text',
      quote: 'buy milk',
    });
    expect(reply({ from: { id: 1, is_bot: true }, text: 'Your plan: run at 7.' })).toMatchObject({
      quote: 'Your plan: run at 7.',
    });
  });

  it('prefers the part the user selected', () => {
    const event = reply(
      { text: 'one two three' },
      { quote: { text: 'two', position: 4, is_manual: true } },
    );
    expect(event).toMatchObject({ quote: 'two' });
  });

  it('quotes a caption, and nothing for a message without text', () => {
    expect(reply({ photo: [{ file_id: 'p' }], caption: 'the view' })).toMatchObject({
      quote: 'the view',
    });
    expect(reply({ voice: { file_id: 'v', duration: 1 } })).not.toHaveProperty('quote');
    expect(reply({ text: '   ' })).not.toHaveProperty('quote');
    expect(translate({ text: 'no reply' })).not.toHaveProperty('quote');
  });

  it('cuts a long quote to 1000 characters with an ellipsis', () => {
    const quote = (reply({ text: 'a'.repeat(5000) }) as { quote: string }).quote;
    expect(quote).toHaveLength(1000);
    expect(quote.endsWith('a…')).toBe(true);
    // Never half an emoji (a surrogate pair) before the ellipsis.
    const emoji = (reply({ text: `${'a'.repeat(998)}😀😀` }) as { quote: string }).quote;
    expect(emoji).toBe(`${'a'.repeat(998)}…`);
    expect(reply({ text: 'b'.repeat(1000) })).toMatchObject({ quote: 'b'.repeat(1000) });
  });

  it('does not take the creation message of a forum topic for a quote', () => {
    const inTopic = { chat: forum, message_thread_id: 30, is_topic_message: true };
    const root = { message_id: 30, forum_topic_created: { name: 'Garden', icon_color: 1 } };
    const event = translate({
      ...inTopic,
      text: 'hello',
      reply_to_message: { ...root, chat: forum },
    });
    expect(event).toMatchObject({ kind: 'text', topicName: 'Garden', address: { threadId: '30' } });
    expect(event).not.toHaveProperty('quote');
    // Even when the service message comes without its content.
    const bare = translate({
      ...inTopic,
      text: 'hi',
      reply_to_message: { message_id: 30, chat: forum },
    });
    expect(bare).not.toHaveProperty('quote');
    // A real reply inside the topic is a quote.
    const real = translate({
      ...inTopic,
      text: 'yes',
      reply_to_message: { message_id: 31, chat: forum, text: 'water the roses?' },
    });
    expect(real).toMatchObject({ quote: 'water the roses?', address: { threadId: '30' } });
  });

  it('quotes in a plain supergroup, where a reply also sets message_thread_id', () => {
    const group = { id: -200, type: 'supergroup', title: 'G' };
    const event = translate({
      chat: group,
      message_thread_id: 8,
      text: 'agreed',
      reply_to_message: { message_id: 8, chat: group, text: 'lunch at 1?' },
    });
    expect(event).toMatchObject({ quote: 'lunch at 1?', address: { chatId: '-200' } });
  });

  it('quotes a reply to another chat only through the selected part', () => {
    const external_reply = {
      origin: { type: 'channel', date: 0 },
      chat: { id: -5, type: 'channel' },
    };
    expect(
      translate({ text: 'see this', external_reply, quote: { text: 'rates rise' } }),
    ).toMatchObject({
      quote: 'rates rise',
    });
    expect(translate({ text: 'see this', external_reply })).not.toHaveProperty('quote');
  });

  it('quotes for media and edits too, not for callbacks', () => {
    const target = { message_id: 3, chat, text: 'the recipe' };
    expect(
      translate({ voice: { file_id: 'v', duration: 2 }, reply_to_message: target }),
    ).toMatchObject({
      kind: 'voice',
      quote: 'the recipe',
    });
    const edit = {
      update_id: 50,
      edited_message: message({ text: 'fixed', reply_to_message: target }),
    };
    expect(translateUpdate(edit, AT)).toMatchObject({ kind: 'edited', quote: 'the recipe' });
    const callback = {
      update_id: 51,
      callback_query: {
        id: 'c',
        from,
        data: 'd',
        message: message({ text: 'menu', reply_to_message: target }),
      },
    };
    expect(translateUpdate(callback, AT)).not.toHaveProperty('quote');
  });
});

describe('translateUpdate: hostile input', () => {
  const valid: object[] = [
    { text: 'hi', reply_to_message: { message_id: 1, text: 'q' }, quote: { text: 'q' } },
    { text: 'hi', external_reply: { origin: { type: 'user', sender_user: { id: 1 } } } },
    {
      text: 'hi',
      reply_to_message: { from: { id: 1 }, forward_origin: { type: 'x' }, sender_chat: {} },
    },
    { voice: { file_id: 'v', duration: 1 }, caption: 'c' },
    { audio: { file_id: 'a', duration: 1, file_name: 'x.mp3' } },
    { photo: [{ file_id: 'p', width: 1, height: 1 }], media_group_id: 'g' },
    { document: { file_id: 'd' } },
    { animation: { file_id: 'a' }, document: { file_id: 'a' } },
    { video: { file_id: 'v' } },
    { video_note: { file_id: 'v' } },
    { location: { latitude: 1, longitude: 2, live_period: 60 } },
    { venue: { location: { latitude: 1, longitude: 2 }, title: 't', address: 'a' } },
    { contact: { phone_number: '1', first_name: 'f', user_id: 3 } },
    { sticker: { file_id: 's', emoji: 'x' } },
  ];
  const junk = [null, 0, -1, 1e308, Number.NaN, '', 'x', true, [], [null], {}, { file_id: 5 }];

  it('never throws when any field of any kind holds junk', () => {
    let checked = 0;
    for (const extra of valid) {
      for (const key of Object.keys(extra)) {
        for (const value of junk) {
          const raw = update({ ...extra, [key]: value });
          expect(() => translateUpdate(raw, AT)).not.toThrow();
          expect(() =>
            translateUpdate({ update_id: 1, edited_message: raw.message }, AT),
          ).not.toThrow();
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('reads a junk reply or quote as no quote, and keeps the message', () => {
    for (const value of junk) {
      const event = translate({ text: 'hi', reply_to_message: value, quote: value });
      expect(event).toMatchObject({ kind: 'text', text: 'hi' });
      expect(event).not.toHaveProperty('quote');
    }
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

describe('translateUpdate: groups', () => {
  const bot = { id: 123456, username: 'satchel_bot' };
  const group = { id: -100, type: 'supergroup', title: 'G' };
  const from = { id: 111, is_bot: false, first_name: 'Ada', last_name: 'L' };
  const inGroup = (fields: object) => ({
    update_id: 20,
    message: { message_id: 7, chat: group, from, date: 1, ...fields },
  });

  it('says whether a group message is addressed to the bot', () => {
    const addressed = (fields: object) => translateUpdate(inGroup(fields), AT, bot)?.addressed;
    expect(addressed({ text: 'hello all' })).toBe(false);
    expect(
      addressed({
        text: 'hi @Satchel_Bot',
        entities: [{ type: 'mention', offset: 3, length: 12 }],
      }),
    ).toBe(true);
    expect(
      addressed({ text: 'hi @someone', entities: [{ type: 'mention', offset: 3, length: 8 }] }),
    ).toBe(false);
    expect(
      addressed({
        text: 'hi Satchel',
        entities: [{ type: 'text_mention', offset: 3, length: 7, user: { id: 123456 } }],
      }),
    ).toBe(true);
    expect(
      addressed({ text: 'yes', reply_to_message: { message_id: 3, from: { id: 123456 } } }),
    ).toBe(true);
    expect(addressed({ text: 'yes', reply_to_message: { message_id: 3, from: { id: 5 } } })).toBe(
      false,
    );
    expect(
      addressed({
        caption: '@satchel_bot look',
        caption_entities: [{ type: 'mention', offset: 0, length: 12 }],
        photo: [{ file_id: 'p' }],
      }),
    ).toBe(true);
  });

  it('drops commands for another bot, keeps its own and bare ones, and names the sender', () => {
    const command = (text: string) =>
      translateUpdate(
        inGroup({ text, entities: [{ type: 'bot_command', offset: 0, length: text.length }] }),
        AT,
        bot,
      );
    expect(command('/help@otherbot')).toBeUndefined();
    expect(command('/help@satchel_bot')).toMatchObject({
      kind: 'command',
      command: 'help',
      addressed: true,
    });
    expect(command('/help')).toMatchObject({ kind: 'command', senderName: 'Ada L' });
    expect(command('/help')).not.toHaveProperty('target');
  });

  it('translates reactions, closed topics and migrations', () => {
    expect(
      translateUpdate(
        {
          update_id: 21,
          message_reaction: {
            chat: group,
            message_id: 1000,
            user: from,
            date: 1,
            old_reaction: [],
            new_reaction: [{ type: 'emoji', emoji: '👍' }],
          },
        },
        AT,
        bot,
      ),
    ).toMatchObject({ kind: 'reaction', emoji: '👍', messageId: '1000', senderId: '111' });
    expect(
      translateUpdate(
        {
          update_id: 22,
          message_reaction: {
            chat: group,
            message_id: 1000,
            user: from,
            date: 1,
            new_reaction: [],
          },
        },
        AT,
        bot,
      ),
    ).toBeUndefined();
    expect(translateUpdate(inGroup({ migrate_to_chat_id: -1009 }), AT, bot)).toMatchObject({
      kind: 'chat_change',
      change: 'moved',
      movedTo: '-1009',
    });
    expect(translateUpdate(inGroup({ forum_topic_closed: {} }), AT, bot)).toMatchObject({
      kind: 'chat_change',
      change: 'topic_closed',
    });
  });
});
