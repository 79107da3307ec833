/**
 * The chats the fake Telegram server knows and the messages it keeps in them: those users sent
 * (so a later reply can quote them) and those the bot sent (so edits, callbacks and replies see
 * them as Telegram would). Message ids count per chat: the user's from 1, the bot's from 1000.
 */
import { type Json, unixNow } from './telegram-wire.ts';

export interface UserRef {
  userId: number;
  /** Defaults to `userId` (a private chat). */
  chatId?: number;
}

export interface MessageOpts {
  chatType?: 'private' | 'group' | 'supergroup';
  threadId?: number;
  isForum?: boolean;
  /**
   * Reply to a message sent earlier in this chat (by the user or the bot): it becomes the
   * `reply_to_message`. In a forum topic, pass the topic's id to reply to its creation
   * message, as Telegram clients do for every message in a topic.
   */
  replyToMessageId?: number;
  /** The part of the replied-to message the user selected (`message.quote.text`). */
  quote?: string;
  /** Forwarded from a user of this name (`forward_origin` of type `hidden_user`). */
  forwardedFrom?: string;
  /**
   * A reply to a post of another chat, a channel of this title (`external_reply`, whose
   * `origin` is that channel); `quote` gives the part quoted.
   */
  externalReply?: string;
}

export const ICON_COLOR = 7322096;

/** A user as Telegram shows them; `name` is their first name (default "User"). */
export const user = (id: number, name = 'User') => ({ id, is_bot: false, first_name: name });

export function thread(threadId: number) {
  return { message_thread_id: threadId, is_topic_message: true };
}

export class Chats {
  private readonly chats = new Map<number, Json>();
  /** Bot-sent messages by `chat:message_id`, with their reply markup serialized for comparison. */
  private readonly botMessages = new Map<string, { message: Json; markup: string }>();
  /** Messages users sent (and topic creations), by `chat:message_id`, for replies to them. */
  private readonly userMessages = new Map<string, Json>();
  private readonly userMessageIds = new Map<number, number>();
  private readonly botMessageIds = new Map<number, number>();
  /** getMe's `can_read_all_group_messages` (privacy mode off). */
  readsAllGroupMessages = false;
  /** First names given to users (`nameUser`); the others are "User". */
  private readonly names = new Map<number, string>();
  /** Forum topics deleted by a user, by `chat:thread`. */
  private readonly deletedTopics = new Set<string>();

  constructor(
    private readonly token: string,
    private readonly botUsername: string,
  ) {}

  /** The bot, as getMe and the `from` of its messages show it. */
  me() {
    const id = Number(this.token.split(':')[0]) || 123456;
    return { id, is_bot: true, first_name: 'Satchel', username: this.botUsername };
  }

  /** Gives a user a first name, shown as the `from` of their later updates. */
  nameUser(userId: number, name: string): void {
    this.names.set(userId, name);
  }

  /** A user deletes a forum topic: Telegram sends no update, and the thread is unknown after. */
  deleteTopic(chatId: number, threadId: number): void {
    this.deletedTopics.add(`${chatId}:${threadId}`);
  }

  /** Whether a call's `chat_id` and `message_thread_id` name a deleted topic. */
  isDeletedTopic(chatId: Json, threadId: Json): boolean {
    return threadId !== undefined && this.deletedTopics.has(`${chatId}:${threadId}`);
  }

  /** A user as their updates show them. */
  from(userId: number) {
    return user(userId, this.names.get(userId));
  }

  /** The chat object for `chatId`, remembered so bot replies and later updates agree. */
  chat(chatId: number, userId: number, type?: string, isForum?: boolean): Json {
    const known = this.chats.get(chatId);
    const chatType =
      type ?? known?.type ?? (chatId === userId || chatId > 0 ? 'private' : 'supergroup');
    const chat =
      chatType === 'private'
        ? { id: chatId, type: chatType, first_name: 'User' }
        : { id: chatId, type: chatType, title: 'Test Group' };
    if (isForum ?? known?.is_forum) Object.assign(chat, { is_forum: true });
    this.chats.set(chatId, chat);
    return chat;
  }

  /** The chat the bot sends to: as users' updates showed it, else a private chat. */
  botChat(chatId: number): Json {
    return this.chats.get(chatId) ?? this.chat(chatId, chatId);
  }

  /** A new message from the user, with its chat, topic, reply and quote; kept for replies. */
  userMessage(o: UserRef & MessageOpts): Json {
    const chatId = o.chatId ?? o.userId;
    const message: Json = {
      message_id: next(this.userMessageIds, chatId, 1),
      from: this.from(o.userId),
      chat: this.chat(chatId, o.userId, o.chatType, o.isForum),
      date: unixNow(),
    };
    if (o.threadId !== undefined) Object.assign(message, thread(o.threadId));
    if (o.replyToMessageId !== undefined) {
      message.reply_to_message = this.repliedTo(chatId, o.replyToMessageId);
    }
    if (o.quote !== undefined) message.quote = { text: o.quote, position: 0, is_manual: true };
    if (o.forwardedFrom !== undefined)
      message.forward_origin = { type: 'hidden_user', sender_user_name: o.forwardedFrom, date: 0 };
    if (o.externalReply !== undefined) message.external_reply = externalReply(o.externalReply);
    this.keepUserMessage(message);
    return message;
  }

  /** Keeps a message from the user (or a topic's creation) for later replies to it. */
  keepUserMessage(message: Json): void {
    this.userMessages.set(`${message.chat.id}:${message.message_id}`, message);
  }

  /** A later reply to an edited message quotes its new text (the update queued keeps the old). */
  editUserText(chatId: number, messageId: number, text: string): void {
    const key = `${chatId}:${messageId}`;
    const original = this.userMessages.get(key);
    if (original?.text !== undefined) this.userMessages.set(key, { ...original, text });
  }

  /** The next id of a message the bot sends to `chatId`. */
  nextBotMessageId(chatId: number): number {
    return next(this.botMessageIds, chatId, 1000);
  }

  /** The id of the last message the bot sent to `chatId`, if any. */
  lastBotMessageId(chatId: number): number | undefined {
    return this.botMessageIds.get(chatId);
  }

  /** A message the bot sent (as last edited), with its serialized reply markup. */
  botMessage(chatId: Json, messageId: Json): { message: Json; markup: string } | undefined {
    return this.botMessages.get(`${chatId}:${messageId}`);
  }

  /** Keeps what the bot sent or edited: `markup` is the reply_markup the call carried. */
  rememberBotMessage(message: Json, markup: Json): void {
    const key = `${message.chat.id}:${message.message_id}`;
    this.botMessages.set(key, { message, markup: JSON.stringify(markup ?? null) });
  }

  forgetBotMessage(chatId: Json, messageId: Json): void {
    this.botMessages.delete(`${chatId}:${messageId}`);
  }

  /**
   * The stored message `messageId` of the chat, as a `reply_to_message`: the bot's first,
   * then the user's. Telegram never nests replies further, so its own reply is left out.
   */
  private repliedTo(chatId: number, messageId: number): Json {
    const key = `${chatId}:${messageId}`;
    const stored = this.botMessages.get(key)?.message ?? this.userMessages.get(key);
    if (!stored) throw new Error(`replyToMessageId: no message ${messageId} in chat ${chatId}`);
    const { reply_to_message: _nested, quote: _quote, ...target } = stored;
    return structuredClone(target);
  }
}

/** A reply's context when it answers a channel's post elsewhere (ExternalReplyInfo). */
function externalReply(title: string): Json {
  const channel = { id: -1_001_234_567_890, type: 'channel', title };
  return {
    origin: { type: 'channel', chat: channel, message_id: 42, date: unixNow() - 3600 },
    chat: channel,
    message_id: 42,
  };
}

function next(counters: Map<number, number>, chatId: number, first: number): number {
  const id = (counters.get(chatId) ?? first - 1) + 1;
  counters.set(chatId, id);
  return id;
}
