import type { Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { Channel, InlineButton, SendTextOptions } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { toTelegramError } from './errors.ts';

/**
 * The Telegram channel: each method is exactly one Bot API call. Every call into a forum
 * topic carries its `message_thread_id`; the General topic (no threadId) carries none.
 */
export function createTelegramChannel(api: Api): Channel {
  const target = (to: Address) => ({
    chat_id: to.chatId,
    ...(to.threadId === undefined ? {} : { message_thread_id: to.threadId }),
  });
  const format = (options: SendTextOptions) => ({
    ...(options.html ? { parse_mode: 'HTML' as const } : {}),
    ...(options.keyboard ? { reply_markup: keyboardMarkup(options.keyboard) } : {}),
    link_preview_options: { is_disabled: true },
  });
  const guarded = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw toTelegramError(method, error);
    }
  };

  return {
    sendText: (to, text, options) =>
      guarded('sendMessage', async () => {
        const { chat_id, ...rest } = target(to);
        const message = await api.sendMessage(chat_id, text, { ...rest, ...format(options) });
        return { messageId: message.message_id };
      }),
    editText: (to, messageId, text, options) =>
      guarded('editMessageText', async () => {
        await api.editMessageText(to.chatId, messageId, text, format(options));
      }),
    sendDraft: (to, draftId, text) =>
      guarded('sendMessageDraft', async () => {
        await api.raw.sendMessageDraft({ ...target(to), draft_id: draftId, text });
      }),
    sendChatAction: (to, action) =>
      guarded('sendChatAction', async () => {
        const { chat_id, ...rest } = target(to);
        await api.sendChatAction(chat_id, action, rest);
      }),
    answerCallback: (callbackId, text) =>
      guarded('answerCallbackQuery', async () => {
        await api.answerCallbackQuery(callbackId, text === undefined ? {} : { text });
      }),
  };
}

function keyboardMarkup(rows: InlineButton[][]): InlineKeyboardMarkup {
  return {
    inline_keyboard: rows.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))),
  };
}
