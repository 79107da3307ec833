import type { Message, Update } from 'grammy/types';
import type {
  Address,
  ChatType,
  InboundEvent,
  InboundMeta,
  InboundPayload,
} from '../core/types.ts';

/**
 * Turns a Bot API update into the project's InboundEvent, or undefined for kinds satchel
 * does not handle (the caller logs those at debug). Never throws on odd input.
 */
export function translateUpdate(update: Update, receivedAt: number): InboundEvent | undefined {
  if (update.callback_query) {
    const q = update.callback_query;
    const message = q.message;
    if (!message || q.data === undefined) return undefined;
    const meta = metaOf(update.update_id, message as Message, q.from.id, receivedAt);
    return { ...meta, kind: 'callback', callbackId: q.id, data: q.data };
  }
  const edited = update.edited_message;
  if (edited?.from && edited.text !== undefined) {
    return {
      ...metaOf(update.update_id, edited, edited.from.id, receivedAt),
      kind: 'edited',
      text: edited.text,
    };
  }
  const message = update.message;
  if (!message?.from) return undefined;
  const payload = payloadOf(message);
  return (
    payload && { ...metaOf(update.update_id, message, message.from.id, receivedAt), ...payload }
  );
}

function payloadOf(message: Message): InboundPayload | undefined {
  if (message.text !== undefined) return textOrCommand(message);
  const topic = message.forum_topic_created ?? message.forum_topic_edited;
  if (topic?.name !== undefined) return { kind: 'topic', name: topic.name };
  if (message.voice || message.audio) {
    const media = message.voice ?? message.audio!;
    return {
      kind: 'voice',
      file: {
        fileId: media.file_id,
        ...(media.file_size === undefined ? {} : { size: media.file_size }),
      },
      durationSec: media.duration,
      ...(media.mime_type === undefined ? {} : { mimeType: media.mime_type }),
    };
  }
  if (message.photo && message.photo.length > 0) {
    const largest = message.photo.at(-1)!;
    const file = {
      fileId: largest.file_id,
      ...(largest.file_size === undefined ? {} : { size: largest.file_size }),
    };
    if (message.media_group_id) {
      return {
        kind: 'album',
        groupId: message.media_group_id,
        photos: [file],
        caption: message.caption ?? '',
      };
    }
    return { kind: 'photo', file, caption: message.caption ?? '' };
  }
  if (message.document) {
    const d = message.document;
    return {
      kind: 'document',
      file: { fileId: d.file_id, ...(d.file_size === undefined ? {} : { size: d.file_size }) },
      name: d.file_name ?? 'file',
      mimeType: d.mime_type ?? 'application/octet-stream',
      caption: message.caption ?? '',
    };
  }
  return undefined;
}

function textOrCommand(message: Message): InboundPayload {
  const text = message.text ?? '';
  const entity = message.entities?.[0];
  if (entity?.type === 'bot_command' && entity.offset === 0) {
    // "/help@satchel_bot args" → command "help", args "args".
    const command = text.slice(1, entity.length).split('@')[0]!.toLowerCase();
    return { kind: 'command', command, args: text.slice(entity.length).trim() };
  }
  return { kind: 'text', text };
}

function metaOf(
  updateId: number,
  message: Message,
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
function topicNameOf(message: Message): string | undefined {
  return (
    message.forum_topic_created?.name ??
    message.forum_topic_edited?.name ??
    message.reply_to_message?.forum_topic_created?.name
  );
}

/** Only forum-topic messages get a thread id; the General topic (thread 1 or none) has none. */
export function addressOf(message: Message): Address {
  const isForum = message.chat.type === 'supergroup' && message.chat.is_forum === true;
  const thread = message.message_thread_id;
  const inTopic =
    isForum && message.is_topic_message === true && thread !== undefined && thread !== 1;
  return { platform: 'tg', chatId: message.chat.id, ...(inTopic ? { threadId: thread } : {}) };
}
