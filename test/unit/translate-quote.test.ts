/**
 * Who wrote what a reply quotes (SPEC §17): the edge names someone else's words (`quoteFrom`)
 * and leaves out the sender's, the bot's and the owner's.
 */
import { describe, expect, it } from 'vitest';
import { translateParsed } from '../../src/telegram/translate.ts';
import { parseUpdate } from '../../src/telegram/update-schema.ts';

const AT = 1_700_000_000_000;
const OWNER = 111;
const BOB = 222;
const bot = { id: 123456, username: 'satchel_bot' };
const person = (id: number, first_name: string) => ({ id, is_bot: false, first_name });
const owner = person(OWNER, 'Olive');
const bob = person(BOB, 'Bob');
const mallory = person(333, 'Mallory');
const dm = (id: number) => ({ id, type: 'private', first_name: 'U' });
const group = { id: -100, type: 'supergroup', title: 'G' };

/** The event of a text `from` sends in `chat` with `fields` (a reply, a quote…). */
function sent(
  fields: object,
  o: { from?: object; chat?: object; bot?: typeof bot | undefined; edited?: boolean } = {},
) {
  const msg = { message_id: 9, date: 0, chat: o.chat ?? dm(OWNER), from: o.from ?? owner };
  const body = { ...msg, text: 'what about this?', ...fields };
  const raw = { update_id: 1, [o.edited ? 'edited_message' : 'message']: body };
  const parsed = parseUpdate(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return translateParsed(parsed.update, AT, 'bot' in o ? o.bot : bot, { owner: OWNER });
}

const replyTo = (target: object) => ({
  reply_to_message: {
    message_id: 3,
    date: 0,
    chat: dm(OWNER),
    text: 'the quoted words',
    ...target,
  },
});

describe('who wrote a quote', () => {
  it("leaves out the sender's own words and the bot's answers", () => {
    const own = sent(replyTo({ from: owner }));
    expect(own).toMatchObject({ quote: 'the quoted words' });
    expect(own).not.toHaveProperty('quoteFrom');
    const answer = sent(replyTo({ from: { id: bot.id, is_bot: true, first_name: 'Satchel' } }));
    expect(answer).toMatchObject({ quote: 'the quoted words' });
    expect(answer).not.toHaveProperty('quoteFrom');
  });

  it("a person's own words count as the owner's in their private chat", () => {
    const event = sent(replyTo({ from: bob }), { from: bob, chat: dm(BOB) });
    expect(event).not.toHaveProperty('quoteFrom');
  });

  it('names the origin of a forwarded message, not the person who forwarded it', () => {
    const hidden = { type: 'hidden_user', sender_user_name: 'Mallory', date: 0 };
    expect(sent(replyTo({ from: owner, forward_origin: hidden }))).toMatchObject({
      quote: 'the quoted words',
      quoteFrom: 'a forwarded message from Mallory',
    });
    const user = { type: 'user', sender_user: mallory, date: 0 };
    expect(sent(replyTo({ from: owner, forward_origin: user }))).toMatchObject({
      quoteFrom: 'a forwarded message from Mallory',
    });
    const channel = { type: 'channel', chat: { id: -5, type: 'channel', title: 'News' }, date: 0 };
    expect(sent(replyTo({ from: owner, forward_origin: channel }))).toMatchObject({
      quoteFrom: 'a forwarded message from News',
    });
    // Forwarded from the owner is still forwarded: its text came from elsewhere.
    const self = { type: 'user', sender_user: owner, date: 0 };
    expect(sent(replyTo({ from: owner, forward_origin: self }))).toMatchObject({
      quoteFrom: 'a forwarded message from Olive',
    });
  });

  it('names another chat (external_reply) by its origin, the selected part being the quote', () => {
    const origin = { type: 'channel', chat: { id: -5, type: 'channel', title: 'News' }, date: 0 };
    const fields = { external_reply: { origin }, quote: { text: 'rates rise', position: 0 } };
    expect(sent(fields)).toMatchObject({
      quote: 'rates rise',
      quoteFrom: 'News in another chat',
    });
    const bare = { external_reply: {}, quote: { text: 'rates rise', position: 0 } };
    expect(sent(bare)).toMatchObject({ quoteFrom: 'another chat' });
    // The owner's own message in another chat is still the owner's.
    const mine = { external_reply: { origin: { type: 'user', sender_user: owner, date: 0 } } };
    expect(sent({ ...mine, quote: { text: 'my note', position: 0 } })).not.toHaveProperty(
      'quoteFrom',
    );
  });

  it("in a group, names another member; the owner's and the sender's own words are not named", () => {
    const inGroup = (from: object, target: object) =>
      sent(
        { reply_to_message: { message_id: 3, date: 0, chat: group, text: 'lunch?', from: target } },
        { from, chat: group },
      );
    expect(inGroup(owner, bob)).toMatchObject({ quote: 'lunch?', quoteFrom: 'Bob' });
    expect(inGroup(bob, mallory)).toMatchObject({ quoteFrom: 'Mallory' });
    expect(inGroup(bob, owner)).not.toHaveProperty('quoteFrom');
    expect(inGroup(bob, bob)).not.toHaveProperty('quoteFrom');
    // Another bot is not this one.
    const other = { id: 42, is_bot: true, first_name: 'OtherBot' };
    expect(inGroup(owner, other)).toMatchObject({ quoteFrom: 'OtherBot' });
  });

  it('names a chat that speaks for itself (a channel post, an anonymous admin) and an unknown author', () => {
    const anonymous = { id: 1087968824, is_bot: true, first_name: 'Group' };
    expect(sent(replyTo({ from: anonymous, sender_chat: { id: -100, title: 'G' } }))).toMatchObject(
      {
        quoteFrom: 'G',
      },
    );
    expect(sent(replyTo({}))).toMatchObject({ quote: 'the quoted words', quoteFrom: 'someone' });
  });

  it('before the bot is known, a bot message counts as its own', () => {
    const answer = replyTo({ from: { id: bot.id, is_bot: true, first_name: 'Satchel' } });
    expect(sent(answer, { bot: undefined })).not.toHaveProperty('quoteFrom');
    expect(sent(replyTo({ from: mallory }), { bot: undefined })).toMatchObject({
      quoteFrom: 'Mallory',
    });
  });

  it('names the author of an edited reply too', () => {
    expect(sent(replyTo({ from: mallory }), { edited: true })).toMatchObject({
      kind: 'edited',
      quoteFrom: 'Mallory',
    });
  });
});

describe('which message a reply answers (SPEC §8)', () => {
  const fromBot = { from: { id: bot.id, is_bot: true, first_name: 'Satchel' } };
  const forum = { id: -100, type: 'supergroup', title: 'G', is_forum: true };

  it("carries the replied-to message's id, as the core's string, for a text and a voice note", () => {
    expect(sent(replyTo(fromBot))).toMatchObject({ kind: 'text', replyTo: '3' });
    const voice = { voice: { file_id: 'v', duration: 2 }, text: undefined };
    expect(sent({ ...replyTo(fromBot), ...voice })).toMatchObject({ kind: 'voice', replyTo: '3' });
  });

  it("carries none for a message that replies to nothing, or only to its topic's creation", () => {
    expect(sent({})).not.toHaveProperty('replyTo');
    const inTopic = { message_thread_id: 40, is_topic_message: true };
    const root = {
      reply_to_message: {
        message_id: 40,
        date: 0,
        chat: forum,
        forum_topic_created: { name: 'A' },
      },
    };
    expect(sent({ ...inTopic, ...root }, { chat: forum })).not.toHaveProperty('replyTo');
    const inside = replyTo({ ...fromBot, message_id: 41, chat: forum });
    expect(sent({ ...inTopic, ...inside }, { chat: forum })).toMatchObject({ replyTo: '41' });
  });
});
