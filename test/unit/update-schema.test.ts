import { describe, expect, it } from 'vitest';
import { parseUpdate, plainTextUpdate } from '../../src/telegram/update-schema.ts';

const user = { id: 501, is_bot: false, first_name: 'Ann', language_code: 'en' };
const text = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  update_id: 10,
  message: {
    message_id: 7,
    date: 1_765_000_000,
    chat: { id: 501, type: 'private', first_name: 'Ann' },
    from: user,
    text: 'hello',
    ...message,
  },
  ...extra,
});

/** Text messages as Telegram sends them: each one the fast path takes. */
const PLAIN = [
  text({}),
  text({ from: undefined }),
  text({ from: { ...user, last_name: 'Lee', username: 'ann', is_premium: true } }),
  text({
    chat: { id: -100555, type: 'supergroup', title: 'Team', is_forum: true },
    message_thread_id: 3,
    is_topic_message: true,
    text: '/todos@satchel_bot today',
    entities: [
      { type: 'bot_command', offset: 0, length: 19 },
      { type: 'text_mention', offset: 20, length: 5, user: { id: 9, first_name: 'B' } },
    ],
  }),
  text({ link_preview_options: { is_disabled: true }, edit_date: 1 }),
  text({}, { some_future_field: { x: 1 } }),
];

/** Updates the fast path leaves to the schema: another kind, another field it reads, odd types. */
const NOT_PLAIN = [
  { update_id: 10 },
  { update_id: 1.5, message: text({}).message },
  text({ text: undefined, caption: 'a photo' }),
  text({ text: 42 }),
  text({ message_id: '7' }),
  text({ chat: { id: 501 } }),
  text({ chat: { id: 501, type: 'private', is_forum: 'yes' } }),
  text({ from: { id: 'x' } }),
  text({ from: { ...user, username: 5 } }),
  text({ entities: [{ type: 'bold', offset: 0 }] }),
  text({ entities: [{ type: 'text_mention', offset: 0, length: 1, user: { id: 'x' } }] }),
  text({ entities: 'bold' }),
  text({ message_thread_id: '3' }),
  text({ reply_to_message: { message_id: 1, text: 'before' } }),
  text({ forward_origin: { type: 'user', sender_user: user } }),
  text({ quote: { text: 'hel' } }),
  text({ voice: { file_id: 'v', duration: 2 } }),
  text({}, { callback_query: { id: 'c', from: user } }),
  text({}, { edited_message: text({}).message }),
];

describe('the plain text update (fast path)', () => {
  it.each(PLAIN.map((u, i) => [i, u]))(
    'takes plain text message #%i as the schema would read it',
    (_, update) => {
      expect(plainTextUpdate(update)).toBe(update);
      const schema = parseUpdate(structuredClone(update));
      // What the schema reads of it is the update itself, field for field.
      expect(schema).toStrictEqual({ ok: true, update: structuredClone(update) });
    },
  );

  it.each(NOT_PLAIN.map((u, i) => [i, u]))('leaves update #%i to the schema', (_, update) => {
    expect(plainTextUpdate(update)).toBeUndefined();
  });

  it('still reads an odd field as absent, and still refuses a message without a chat', () => {
    const odd = parseUpdate(text({ text: 'hi', entities: 'bold' }));
    expect(odd).toMatchObject({ ok: true, update: { message: { text: 'hi' } } });
    expect(odd.ok && odd.update.message?.entities).toBeUndefined();
    expect(parseUpdate(text({ chat: undefined }))).toEqual({
      ok: false,
      problem: 'message.chat: Invalid input: expected object, received undefined',
    });
  });
});
