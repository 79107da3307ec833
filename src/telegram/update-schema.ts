import { z } from 'zod';

/**
 * The part of a Bot API update that satchel reads, as it arrives on the wire. What says who
 * sent what where (update id, chat, message id, sender) must be there and well typed, or the
 * update is malformed. Everything else is lenient: a field of the wrong type counts as absent,
 * so an odd caption never costs a user their message. Unknown fields and update kinds pass.
 */
const int = z.int();

/** An optional field that reads as absent when it has the wrong type. */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const user = z.looseObject({
  id: int,
  first_name: lenient(z.string()),
  last_name: lenient(z.string()),
  username: lenient(z.string()),
});

const chat = z.looseObject({
  id: int,
  type: z.string(),
  is_forum: lenient(z.boolean()),
});

const fileRef = {
  file_id: z.string(),
  file_size: lenient(z.number()),
};

/** A voice note or an audio file. */
const media = z.looseObject({
  ...fileRef,
  duration: z.number(),
  mime_type: lenient(z.string()),
  file_name: lenient(z.string()),
});

const photoSize = z.looseObject({
  ...fileRef,
  width: lenient(z.number()),
  height: lenient(z.number()),
});

const document = z.looseObject({
  ...fileRef,
  file_name: lenient(z.string()),
  mime_type: lenient(z.string()),
});

/** Media satchel cannot take in (video note, GIF): only its presence is read. */
const unreadMedia = z.looseObject({ file_id: z.string() });

const sticker = z.looseObject({ file_id: z.string(), emoji: lenient(z.string()) });

const location = z.looseObject({
  latitude: z.number(),
  longitude: z.number(),
  horizontal_accuracy: lenient(z.number()),
  live_period: lenient(z.number()),
});

const venue = z.looseObject({ location, title: z.string(), address: z.string() });

const contact = z.looseObject({
  phone_number: z.string(),
  first_name: z.string(),
  last_name: lenient(z.string()),
  user_id: lenient(int),
});

const topic = z.looseObject({ name: z.string() });

const entity = z.looseObject({
  type: z.string(),
  offset: int,
  length: int,
  // A `text_mention` names its user (one without a username).
  user: lenient(z.looseObject({ id: int })),
});

/** A chat as an origin names it: only its title is read. */
const titled = z.looseObject({ title: lenient(z.string()) });

/**
 * Where a message came from (MessageOrigin): a user (or one who hides their account), a
 * chat, a channel. Its text is someone else's (SPEC §17).
 */
const origin = z.looseObject({
  type: z.string(),
  sender_user: lenient(user),
  sender_user_name: lenient(z.string()),
  sender_chat: lenient(titled),
  chat: lenient(titled),
});

/**
 * The message a reply answers: who wrote it (its sender, the chat it was sent on behalf of,
 * or the origin it was forwarded from), what it said, or the forum topic it opened.
 */
const repliedTo = z.looseObject({
  message_id: lenient(int),
  from: lenient(user.extend({ is_bot: lenient(z.boolean()) })),
  sender_chat: lenient(titled),
  forward_origin: lenient(origin),
  text: lenient(z.string()),
  caption: lenient(z.string()),
  forum_topic_created: lenient(topic),
});

const message = z.looseObject({
  message_id: int,
  chat,
  from: user.optional(),
  message_thread_id: lenient(int),
  is_topic_message: lenient(z.boolean()),
  text: lenient(z.string()),
  entities: lenient(z.array(entity)),
  caption: lenient(z.string()),
  caption_entities: lenient(z.array(entity)),
  media_group_id: lenient(z.string()),
  voice: lenient(media),
  audio: lenient(media),
  photo: lenient(z.array(photoSize)),
  document: lenient(document),
  // Saved like a document with local files (TELEGRAM_LOCAL_FILES), else refused.
  video: lenient(document),
  video_note: lenient(unreadMedia),
  animation: lenient(unreadMedia),
  sticker: lenient(sticker),
  location: lenient(location),
  venue: lenient(venue),
  contact: lenient(contact),
  forum_topic_created: lenient(topic),
  forum_topic_edited: lenient(topic),
  forum_topic_closed: lenient(z.looseObject({})),
  forum_topic_reopened: lenient(z.looseObject({})),
  migrate_to_chat_id: lenient(int),
  reply_to_message: lenient(repliedTo),
  // Where a forwarded message came from: its text is someone else's (SPEC §17).
  forward_origin: lenient(origin),
  // A reply to a message of another chat (or topic): only its origin is read.
  external_reply: lenient(z.looseObject({ origin: lenient(origin) })),
  // The part of the replied-to message the user selected (also for replies to other chats).
  quote: lenient(z.looseObject({ text: z.string() })),
});

const callbackQuery = z.looseObject({
  id: z.string(),
  from: user,
  // An inaccessible (too old) message still carries its chat and id.
  message: message.optional(),
  data: lenient(z.string()),
});

/** An emoji reaction; custom emoji and paid reactions carry no emoji. */
const reactionType = z.looseObject({ type: z.string(), emoji: lenient(z.string()) });

/** A user changed their reaction to a message (only the new reactions are read). */
const messageReaction = z.looseObject({
  chat,
  message_id: int,
  user: lenient(user),
  new_reaction: lenient(z.array(reactionType)),
});

const updateSchema = z.looseObject({
  update_id: int,
  message: message.optional(),
  edited_message: message.optional(),
  callback_query: callbackQuery.optional(),
  message_reaction: messageReaction.optional(),
});

export type WireUpdate = z.infer<typeof updateSchema>;
export type WireMessage = z.infer<typeof message>;
export type WireReaction = z.infer<typeof messageReaction>;

export type ParsedUpdate = { ok: true; update: WireUpdate } | { ok: false; problem: string };

/** Checks an update's shape; never throws. `problem` names the first bad field. */
export function parseUpdate(raw: unknown): ParsedUpdate {
  const plain = plainTextUpdate(raw);
  if (plain) return { ok: true, update: plain };
  const result = updateSchema.safeParse(raw);
  if (result.success) return { ok: true, update: result.data };
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || '(update)';
  return { ok: false, problem: `${field}: ${issue?.message ?? 'invalid'}` };
}

/** The update id of something that claims to be an update, when it has a usable one. */
export function updateIdOf(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const id = (raw as { update_id?: unknown }).update_id;
  return Number.isSafeInteger(id) ? (id as number) : undefined;
}

/*
 * The common update — a text message, maybe with entities, in a chat or a topic — checked
 * by hand: the schema above takes about 30 µs warm (several times that between quiet turns)
 * on every message, before its turn can start. An update this check does not fully vouch
 * for goes to the schema: any other kind, a message with any other field the schema reads,
 * or a field of the wrong type (which the schema reads as absent, so its output differs
 * from the input). What it accepts, the schema would return unchanged (see
 * update-schema.test.ts), so the update itself is the parsed one.
 */

const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** Absent, or present with the right type (a lenient field that would read as itself). */
const absentOr = (v: unknown, type: 'string' | 'boolean') => v === undefined || typeof v === type;

/** The message fields the fast path checks; every other field the schema reads sends it there. */
const PLAIN_FIELDS: Record<string, (v: unknown) => boolean> = {
  message_id: isInt,
  chat: (v) =>
    isObject(v) && isInt(v.id) && typeof v.type === 'string' && absentOr(v.is_forum, 'boolean'),
  from: (v) => v === undefined || plainUser(v),
  text: (v) => typeof v === 'string',
  entities: (v) => Array.isArray(v) && v.every(plainEntity),
  message_thread_id: isInt,
  is_topic_message: (v) => typeof v === 'boolean',
};
const SCHEMA_FIELDS = new Set(Object.keys(message.shape));
const UPDATE_KINDS = ['edited_message', 'callback_query', 'message_reaction'];

function plainUser(v: unknown): boolean {
  return (
    isObject(v) &&
    isInt(v.id) &&
    absentOr(v.first_name, 'string') &&
    absentOr(v.last_name, 'string') &&
    absentOr(v.username, 'string')
  );
}

function plainEntity(v: unknown): boolean {
  return (
    isObject(v) &&
    typeof v.type === 'string' &&
    isInt(v.offset) &&
    isInt(v.length) &&
    (v.user === undefined || (isObject(v.user) && isInt(v.user.id)))
  );
}

/** The update as it is, when it is a plain text message the schema would pass unchanged. */
export function plainTextUpdate(raw: unknown): WireUpdate | undefined {
  if (!isObject(raw) || !isInt(raw.update_id) || !isObject(raw.message)) return undefined;
  if (UPDATE_KINDS.some((kind) => raw[kind] !== undefined)) return undefined;
  const fields = raw.message;
  if (fields.text === undefined) return undefined;
  for (const key in fields) {
    const check = PLAIN_FIELDS[key];
    if (check ? !check(fields[key]) : SCHEMA_FIELDS.has(key)) return undefined;
  }
  if (fields.chat === undefined || fields.message_id === undefined) return undefined;
  return raw as WireUpdate;
}
