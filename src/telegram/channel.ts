import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Api, InputFile } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { UnreadableFileError } from '../core/errors.ts';
import type {
  Channel,
  ChannelCapabilities,
  InlineButton,
  MediaMessage,
  SendTextOptions,
} from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { toChannelError } from './errors.ts';
import { idIn, idOut, TELEGRAM_PLATFORM } from './ids.ts';
import { telegramRenderer } from './render.ts';

/** Telegram can send everything satchel produces. */
const TELEGRAM_CAPABILITIES: ChannelCapabilities = {
  photo: true,
  audio: true,
  voice: true,
  document: true,
  keyboard: true,
};

/**
 * The Telegram channel (`tg`), with every optional method; it renders Markdown to its HTML
 * subset (render.ts): each method is exactly one Bot
 * API call, and its failure is a ChannelError (see errors.ts). Every call into a forum topic
 * carries its `message_thread_id`; the General topic (no threadId) carries none.
 */
export function createTelegramChannel(
  api: Api,
  capabilities: ChannelCapabilities = TELEGRAM_CAPABILITIES,
): Channel {
  const thread = (to: Address) =>
    to.threadId === undefined ? {} : { message_thread_id: idOut(to.threadId) };
  const markup = (keyboard?: InlineButton[][]) =>
    keyboard ? { reply_markup: keyboardMarkup(keyboard) } : {};
  const format = (options: SendTextOptions) => ({
    ...(options.formatted ? { parse_mode: 'HTML' as const } : {}),
    ...markup(options.keyboard),
    link_preview_options: { is_disabled: true },
  });
  const guarded = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw toChannelError(method, error);
    }
  };

  return {
    platform: TELEGRAM_PLATFORM,
    capabilities,
    render: telegramRenderer,
    sendText: (to, text, options) =>
      guarded('sendMessage', async () => {
        const message = await api.sendMessage(idOut(to.chatId), text, {
          ...thread(to),
          ...format(options),
        });
        return { messageId: idIn(message.message_id) };
      }),
    sendMedia: (to, media) => sendMedia(to, media, { ...thread(to), ...markup(media.keyboard) }),
    editText: (to, messageId, text, options) =>
      guarded('editMessageText', async () => {
        await api.editMessageText(idOut(to.chatId), idOut(messageId), text, format(options));
      }),
    deleteMessage: (to, messageId) =>
      guarded('deleteMessage', async () => {
        await api.deleteMessage(idOut(to.chatId), idOut(messageId));
      }),
    sendDraft: (to, draftId, text, options) =>
      guarded('sendMessageDraft', async () => {
        await api.raw.sendMessageDraft({
          chat_id: idOut(to.chatId),
          ...thread(to),
          draft_id: draftId,
          text,
          ...(options.formatted ? { parse_mode: 'HTML' as const } : {}),
        });
      }),
    sendChatAction: (to, action) =>
      guarded('sendChatAction', async () => {
        await api.sendChatAction(idOut(to.chatId), action, thread(to));
      }),
    answerCallback: (callbackId, text) =>
      guarded('answerCallbackQuery', async () => {
        await api.answerCallbackQuery(callbackId, text === undefined ? {} : { text });
      }),
    createTopic: (chatId, name) =>
      guarded('createForumTopic', async () => {
        const topic = await api.createForumTopic(idOut(chatId), name);
        return { threadId: idIn(topic.message_thread_id) };
      }),
    setReaction: (to, messageId, emoji) =>
      guarded('setMessageReaction', async () => {
        const reaction = emoji === undefined ? [] : [{ type: 'emoji' as const, emoji }];
        // Telegram takes only emoji from its own list; the configured one is passed as is.
        await api.setMessageReaction(idOut(to.chatId), idOut(messageId), reaction as never);
      }),
  };

  async function sendMedia(to: Address, media: MediaMessage, extra: object) {
    const method = MEDIA_METHODS[media.kind];
    // A local file that cannot be read fails for good here, not as a "network error" later.
    if ('path' in media.source) await checkReadable(media.source.path);
    return guarded(method, async () => {
      const file = 'path' in media.source ? new InputFile(media.source.path) : media.source.url;
      const caption = media.caption
        ? {
            caption: media.caption.text,
            ...(media.caption.formatted ? { parse_mode: 'HTML' as const } : {}),
          }
        : {};
      const options = { ...extra, ...caption };
      const message =
        media.kind === 'photo'
          ? await api.sendPhoto(idOut(to.chatId), file, options)
          : media.kind === 'audio'
            ? await api.sendAudio(idOut(to.chatId), file, options)
            : media.kind === 'voice'
              ? await api.sendVoice(idOut(to.chatId), file, options)
              : await api.sendDocument(idOut(to.chatId), file, options);
      return { messageId: idIn(message.message_id) };
    });
  }
}

/** Rejects with UnreadableFileError unless `file` is a regular file this process can read. */
async function checkReadable(file: string): Promise<void> {
  const name = path.basename(file.replaceAll('\0', ''));
  if (file.includes('\0'))
    throw new UnreadableFileError(`the file path "${name}" contains a NUL byte`);
  try {
    const stats = await stat(file);
    if (!stats.isFile()) throw new UnreadableFileError(`"${name}" is not a regular file`);
    await access(file, constants.R_OK);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UnreadableFileError(`cannot read the file "${name}" (${code})`, error);
  }
}

const MEDIA_METHODS = {
  photo: 'sendPhoto',
  audio: 'sendAudio',
  voice: 'sendVoice',
  document: 'sendDocument',
} as const;

function keyboardMarkup(rows: InlineButton[][]): InlineKeyboardMarkup {
  return {
    inline_keyboard: rows.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))),
  };
}
