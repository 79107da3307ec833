/**
 * What the bot does to messages through the fake Telegram server: send (text, photo, voice,
 * audio, document), edit, delete, and open forum topics. Each is checked as the real Bot API
 * checks it: an empty or too long text, a too long caption, an edit of a message that is gone,
 * has no text or would not change are refused with Telegram's own errors.
 */
import { type Chats, ICON_COLOR, thread } from './telegram-chats.ts';
import { fail, type Json, ok, type Params, type Reply, unixNow } from './telegram-wire.ts';

const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are ' +
  'exactly the same as a content and reply markup of the current message';

export class BotMessages {
  private nextTopicId = 100;
  private nextSentFileId = 1;

  constructor(private readonly chats: Chats) {}

  /** sendMessage, sendPhoto, sendVoice, sendAudio or sendDocument. */
  send(method: string, p: Params): Reply {
    if (p.chat_id === undefined || p.chat_id === '')
      return fail(400, 'Bad Request: chat_id is empty');
    const chatId = Number(p.chat_id);
    const message: Json = {
      message_id: this.chats.nextBotMessageId(chatId),
      from: this.chats.me(),
      chat: this.chats.botChat(chatId),
      date: unixNow(),
    };
    if (p.message_thread_id !== undefined) Object.assign(message, thread(p.message_thread_id));
    if (method === 'sendMessage') {
      const invalid = checkText(p.text, p.parse_mode);
      if (invalid) return invalid;
      message.text = p.text;
    } else {
      if (typeof p.caption === 'string' && visibleLength(p.caption, p.parse_mode) > 1024) {
        return fail(400, 'Bad Request: message caption is too long');
      }
      const kind = method.slice(4).toLowerCase(); // sendPhoto -> photo
      message[kind] = this.media(kind, p[kind], p);
      if (p.caption !== undefined) message.caption = p.caption;
    }
    if (p.reply_markup?.inline_keyboard) message.reply_markup = p.reply_markup;
    this.chats.rememberBotMessage(message, p.reply_markup);
    return ok(message);
  }

  editMessageText(p: Params): Reply {
    const stored = this.chats.botMessage(p.chat_id, p.message_id);
    if (!stored) return fail(400, 'Bad Request: message to edit not found');
    if (stored.message.text === undefined) {
      return fail(400, 'Bad Request: there is no text in the message to edit');
    }
    const invalid = checkText(p.text, p.parse_mode);
    if (invalid) return invalid;
    if (
      stored.message.text === p.text &&
      stored.markup === JSON.stringify(p.reply_markup ?? null)
    ) {
      return fail(400, NOT_MODIFIED);
    }
    const message = { ...stored.message, text: p.text, edit_date: unixNow() };
    delete message.reply_markup;
    if (p.reply_markup?.inline_keyboard) message.reply_markup = p.reply_markup;
    this.chats.rememberBotMessage(message, p.reply_markup);
    return ok(message);
  }

  deleteMessage(p: Params): Reply {
    this.chats.forgetBotMessage(p.chat_id, p.message_id);
    return ok(true);
  }

  createForumTopic(p: Params): Reply {
    return ok({ message_thread_id: this.nextTopicId++, name: p.name, icon_color: ICON_COLOR });
  }

  /** The sent file as the message shows it: an upload gets a new file_id, a URL too. */
  private media(kind: string, input: Json, p: Params): Json {
    const upload = typeof input === 'object' && input !== null ? input : undefined;
    const file_id =
      typeof input === 'string' && !input.includes('://') ? input : `sent-${this.nextSentFileId++}`;
    const base = { file_id, file_unique_id: `u-${file_id}`, file_size: upload?.size ?? 1000 };
    if (kind === 'photo') return [{ ...base, width: 1280, height: 960 }];
    if (kind === 'document') return { ...base, file_name: upload?.filename ?? 'document' };
    return { ...base, duration: Number(p.duration ?? 1) };
  }
}

function checkText(text: unknown, parseMode: unknown): Reply | undefined {
  if (typeof text !== 'string' || text.trim() === '')
    return fail(400, 'Bad Request: message text is empty');
  if (visibleLength(text, parseMode) > 4096) return fail(400, 'Bad Request: message is too long');
  return undefined;
}

/** Telegram measures length after parsing entities: tags do not count, an entity is one unit. */
function visibleLength(text: string, parseMode: unknown): number {
  if (parseMode !== 'HTML') return text.length;
  return text.replace(/<[^>]*>/g, '').replace(/&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/gi, '_').length;
}
