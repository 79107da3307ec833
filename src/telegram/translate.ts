import { neutralise } from '../core/trust.ts';
import type {
  Address,
  ChatType,
  FileRef,
  InboundEvent,
  InboundMeta,
  InboundPayload,
} from '../core/types.ts';
import {
  type BotIdentity,
  commandTarget,
  isAddressed,
  isForAnotherBot,
  nameOf,
} from './addressing.ts';
import { idIn, TELEGRAM_PLATFORM } from './ids.ts';
import { chatChangeOf, reactionOf } from './translate-chat.ts';
import { forwardedOf, quoteOf, replyToOf } from './translate-quote.ts';
import { parseUpdate, type WireMessage, type WireUpdate } from './update-schema.ts';

type WireFile = NonNullable<WireMessage['document']>;

/**
 * Turns a Bot API update into the project's InboundEvent, or undefined for kinds satchel
 * does not handle (the caller logs those at debug) and for malformed updates (which the
 * ingress reports and settles before they get here). Never throws, whatever the input:
 * the update is checked against its schema first, and only checked fields are read.
 */
export function translateUpdate(
  update: unknown,
  receivedAt: number,
  bot?: BotIdentity,
): InboundEvent | undefined {
  const parsed = parseUpdate(update);
  return parsed.ok ? translateParsed(parsed.update, receivedAt, bot) : undefined;
}

export interface TranslateOptions {
  /**
   * TELEGRAM_LOCAL_FILES: large files are read from a self-hosted Bot API server's disk, so a
   * video is taken like a document (saved in the workspace) instead of refused.
   */
  localFiles?: boolean;
  /** The owner's id: their words in a quote are not someone else's (SPEC §17). */
  owner?: number | undefined;
}

/**
 * translateUpdate for an update already checked against its schema (`parseUpdate`). With
 * `bot` (who the bot is), group messages say whether they are addressed to it, and commands
 * addressed to another bot are dropped (undefined).
 */
export function translateParsed(
  update: WireUpdate,
  receivedAt: number,
  bot?: BotIdentity,
  options: TranslateOptions = {},
): InboundEvent | undefined {
  const { update_id: updateId, callback_query: q, edited_message: edited, message } = update;
  if (q) {
    if (!q.message || q.data === undefined) return undefined;
    const meta = metaOf(updateId, q.message, q.from, receivedAt);
    return { ...meta, kind: 'callback', callbackId: q.id, data: q.data };
  }
  if (update.message_reaction) return reactionOf(update.message_reaction, updateId, receivedAt);
  // Only an edited text counts; a changed caption or swapped media is ignored.
  if (edited) {
    if (!edited.from || edited.text === undefined) return undefined;
    return {
      ...metaOf(updateId, edited, edited.from, receivedAt),
      ...addressedOf(edited, bot),
      ...quoteOf(edited, { bot, owner: options.owner }),
      kind: 'edited',
      text: edited.text,
    };
  }
  if (!message) return undefined;
  const change = chatChangeOf(message);
  if (change) return { ...metaOf(updateId, message, message.from, receivedAt), ...change };
  if (!message.from) return undefined;
  const payload = payloadOf(message, updateId, options);
  if (!payload) return undefined;
  if (payload.kind === 'command' && isForAnotherBot(payload.target, bot)) return undefined;
  const { target: _, ...rest } = payload;
  return {
    ...metaOf(updateId, message, message.from, receivedAt),
    ...addressedOf(message, bot),
    ...quoteOf(message, { bot, owner: options.owner }),
    ...replyToOf(message),
    ...(rest as InboundPayload),
  };
}

/** In groups, whether the message speaks to the bot (SPEC §12); private chats always do. */
function addressedOf(message: WireMessage, bot: BotIdentity | undefined): { addressed?: boolean } {
  return message.chat.type === 'private' ? {} : { addressed: isAddressed(message, bot) };
}

/** A payload, and for a command the bot it names (`/help@bot`), read then dropped. */
type Parsed = InboundPayload & { target?: string };

function payloadOf(
  message: WireMessage,
  updateId: number,
  options: TranslateOptions,
): Parsed | undefined {
  if (message.text !== undefined) return textOrCommand(message.text, message.entities?.[0]);
  const topic = message.forum_topic_created ?? message.forum_topic_edited;
  if (topic) return { kind: 'topic', name: topic.name };
  return mediaOf(message, updateId, options) ?? sharedOf(message);
}

/**
 * Files the user sent: voice and audio, photos (alone or in an album), documents, and with
 * local files videos (saved as documents are).
 */
function mediaOf(
  message: WireMessage,
  updateId: number,
  options: TranslateOptions,
): InboundPayload | undefined {
  const caption = message.caption ?? '';
  const audio = message.voice ?? message.audio;
  if (audio) {
    return {
      kind: 'voice',
      file: fileRef(audio),
      durationSec: audio.duration,
      ...(audio.mime_type === undefined ? {} : { mimeType: audio.mime_type }),
      ...(audio.file_name === undefined ? {} : { fileName: audio.file_name }),
      caption,
    };
  }
  const largest = largestPhoto(message.photo ?? []);
  if (largest) {
    const file = fileRef(largest);
    if (message.media_group_id) {
      const photos = [{ file, updateId }];
      return { kind: 'album', groupId: message.media_group_id, photos, caption };
    }
    return { kind: 'photo', file, caption };
  }
  // A GIF also arrives as a `document`: it must be recognised before documents are.
  const unsupported = message.animation
    ? 'GIF'
    : message.video && !options.localFiles
      ? 'video'
      : message.video_note
        ? 'video note'
        : undefined;
  if (unsupported) return { kind: 'unsupported', what: unsupported };
  const { video, document } = message;
  if (video) {
    const mimeType = video.mime_type ?? 'video/mp4';
    const made = `video-${message.message_id}.${VIDEO_EXTENSIONS[mimeType] ?? 'mp4'}`;
    return documentOf(video, caption, made, mimeType);
  }
  if (document) return documentOf(document, caption, 'file', 'application/octet-stream');
  return undefined;
}

/** The extension of a video's made-up name (Telegram gives most videos no file name). */
const VIDEO_EXTENSIONS: Record<string, string> = {
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'video/x-matroska': 'mkv',
};

function documentOf(d: WireFile, caption: string, name: string, mimeType: string): InboundPayload {
  return {
    kind: 'document',
    file: fileRef(d),
    name: d.file_name ?? name,
    mimeType: d.mime_type ?? mimeType,
    caption,
  };
}

/**
 * Things shared without a file (a place, a contact, a sticker) become a text the model can
 * read. A venue also carries its `location`, so it is looked at first. Their names were
 * chosen by others (a contact's, a place's): neutralised, as labels from outside are (§17).
 */
function sharedOf(message: WireMessage): InboundPayload | undefined {
  const text = describeShared(message);
  return text === undefined ? undefined : { kind: 'text', text: neutralise(text) };
}

function describeShared(message: WireMessage): string | undefined {
  const { venue, location, contact, sticker } = message;
  if (venue) {
    const at = coordinates(venue.location);
    return `[Venue shared: ${venue.title}, ${venue.address} (${at})]`;
  }
  if (location) {
    const what = location.live_period === undefined ? 'Location' : 'Live location';
    const accuracy =
      location.horizontal_accuracy === undefined
        ? ''
        : `, accuracy ${Math.round(location.horizontal_accuracy)} m`;
    return `[${what} shared: ${coordinates(location)}${accuracy}]`;
  }
  if (contact) {
    const name = [contact.first_name, contact.last_name].filter(Boolean).join(' ');
    const id = contact.user_id === undefined ? '' : `, Telegram user id ${contact.user_id}`;
    return `[Contact shared: ${name}, phone ${contact.phone_number}${id}]`;
  }
  if (sticker) return sticker.emoji ? `[Sticker: ${sticker.emoji}]` : '[Sticker]';
  return undefined;
}

function coordinates(at: { latitude: number; longitude: number }): string {
  return `${at.latitude}, ${at.longitude}`;
}

/** Telegram lists sizes smallest first; the area decides, so an odd order changes nothing. */
function largestPhoto<P extends { width?: number | undefined; height?: number | undefined }>(
  sizes: readonly P[],
): P | undefined {
  let best: P | undefined;
  let bestArea = -1;
  for (const size of sizes) {
    const area = (size.width ?? 0) * (size.height ?? 0);
    if (area >= bestArea) {
      best = size;
      bestArea = area;
    }
  }
  return best;
}

function fileRef(file: { file_id: string; file_size?: number | undefined }): FileRef {
  return {
    fileId: file.file_id,
    ...(file.file_size === undefined ? {} : { size: file.file_size }),
  };
}

function textOrCommand(
  text: string,
  entity: NonNullable<WireMessage['entities']>[number] | undefined,
): Parsed {
  if (entity?.type === 'bot_command' && entity.offset === 0) {
    // "/help@satchel_bot args" → command "help", args "args", target "satchel_bot".
    const command = (text.slice(1, entity.length).split('@')[0] ?? '').toLowerCase();
    const target = commandTarget(text, entity);
    return {
      kind: 'command',
      command,
      args: text.slice(entity.length).trim(),
      ...(target === undefined ? {} : { target }),
    };
  }
  return { kind: 'text', text };
}

type Sender = NonNullable<WireMessage['from']>;

function metaOf(
  updateId: number,
  message: WireMessage,
  from: Sender | undefined,
  receivedAt: number,
): InboundMeta {
  const address = addressOf(message);
  const topicName = address.threadId === undefined ? undefined : topicNameOf(message);
  const senderName = from ? nameOf(from) : undefined;
  return {
    origin: { platform: TELEGRAM_PLATFORM, keys: [`update:${updateId}`] },
    address,
    chatType: message.chat.type as ChatType,
    // A service message without a sender (a group's migration) is from nobody: id 0.
    senderId: idIn(from?.id ?? 0),
    ...(senderName === undefined ? {} : { senderName }),
    messageId: idIn(message.message_id),
    receivedAt,
    ...(topicName === undefined ? {} : { topicName }),
    ...(message.chat.type === 'supergroup' && message.chat.is_forum ? { isForum: true } : {}),
    ...forwardedOf(message),
  };
}

/** A topic's name travels in its creation message, quoted as the reply-to of messages in it. */
function topicNameOf(message: WireMessage): string | undefined {
  return (
    message.forum_topic_created?.name ??
    message.forum_topic_edited?.name ??
    message.reply_to_message?.forum_topic_created?.name
  );
}

/** Only forum-topic messages get a thread id; the General topic (thread 1 or none) has none. */
export function addressOf(message: WireMessage): Address {
  const isForum = message.chat.type === 'supergroup' && message.chat.is_forum === true;
  const thread = message.message_thread_id;
  const inTopic =
    isForum && message.is_topic_message === true && thread !== undefined && thread !== 1;
  return {
    platform: TELEGRAM_PLATFORM,
    chatId: idIn(message.chat.id),
    ...(inTopic ? { threadId: idIn(thread) } : {}),
  };
}
