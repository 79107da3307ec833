import type {
  Address,
  ChatType,
  InboundEvent,
  InboundMeta,
  InboundPayload,
} from '../core/types.ts';
import { parseUpdate, type WireMessage } from './update-schema.ts';

/**
 * Turns a Bot API update into the project's InboundEvent, or undefined for kinds satchel
 * does not handle (the caller logs those at debug) and for malformed updates (which the
 * ingress reports and settles before they get here). Never throws, whatever the input:
 * the update is checked against its schema first, and only checked fields are read.
 */
export function translateUpdate(update: unknown, receivedAt: number): InboundEvent | undefined {
  const parsed = parseUpdate(update);
  if (!parsed.ok) return undefined;
  const { update_id: updateId, callback_query: q, edited_message: edited, message } = parsed.update;
  if (q) {
    if (!q.message || q.data === undefined) return undefined;
    const meta = metaOf(updateId, q.message, q.from.id, receivedAt);
    return { ...meta, kind: 'callback', callbackId: q.id, data: q.data };
  }
  if (edited?.from && edited.text !== undefined) {
    return {
      ...metaOf(updateId, edited, edited.from.id, receivedAt),
      kind: 'edited',
      text: edited.text,
    };
  }
  if (!message?.from) return undefined;
  const payload = payloadOf(message);
  return payload && { ...metaOf(updateId, message, message.from.id, receivedAt), ...payload };
}

function payloadOf(message: WireMessage): InboundPayload | undefined {
  if (message.text !== undefined) return textOrCommand(message.text, message.entities?.[0]);
  const topic = message.forum_topic_created ?? message.forum_topic_edited;
  if (topic) return { kind: 'topic', name: topic.name };
  const media = message.voice ?? message.audio;
  if (media) {
    return {
      kind: 'voice',
      file: fileRef(media),
      durationSec: media.duration,
      ...(media.mime_type === undefined ? {} : { mimeType: media.mime_type }),
    };
  }
  const largest = message.photo?.at(-1);
  if (largest) {
    const file = fileRef(largest);
    const caption = message.caption ?? '';
    if (message.media_group_id) {
      return { kind: 'album', groupId: message.media_group_id, photos: [file], caption };
    }
    return { kind: 'photo', file, caption };
  }
  if (message.document) {
    const d = message.document;
    return {
      kind: 'document',
      file: fileRef(d),
      name: d.file_name ?? 'file',
      mimeType: d.mime_type ?? 'application/octet-stream',
      caption: message.caption ?? '',
    };
  }
  return undefined;
}

function fileRef(file: { file_id: string; file_size?: number | undefined }) {
  return {
    fileId: file.file_id,
    ...(file.file_size === undefined ? {} : { size: file.file_size }),
  };
}

function textOrCommand(
  text: string,
  entity: { type: string; offset: number; length: number } | undefined,
): InboundPayload {
  if (entity?.type === 'bot_command' && entity.offset === 0) {
    // "/help@satchel_bot args" → command "help", args "args".
    const command = (text.slice(1, entity.length).split('@')[0] ?? '').toLowerCase();
    return { kind: 'command', command, args: text.slice(entity.length).trim() };
  }
  return { kind: 'text', text };
}

function metaOf(
  updateId: number,
  message: WireMessage,
  senderId: number,
  receivedAt: number,
): InboundMeta {
  const address = addressOf(message);
  const topicName = address.threadId === undefined ? undefined : topicNameOf(message);
  return {
    updateIds: [updateId],
    address,
    chatType: message.chat.type as ChatType,
    senderId,
    messageId: message.message_id,
    receivedAt,
    ...(topicName === undefined ? {} : { topicName }),
    ...(message.chat.type === 'supergroup' && message.chat.is_forum ? { isForum: true } : {}),
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
  return { platform: 'tg', chatId: message.chat.id, ...(inTopic ? { threadId: thread } : {}) };
}
