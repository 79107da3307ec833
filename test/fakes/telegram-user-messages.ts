/**
 * Updates from users, as Telegram sends them: texts (commands get their entity), button presses,
 * edits, forum topics, and the shared things (location, venue, contact). Media are in
 * telegram-user-media.ts. Each builder queues its update and returns its update_id.
 */
import {
  type Chats,
  ICON_COLOR,
  type MessageOpts,
  thread,
  type UserRef,
  user,
} from './telegram-chats.ts';
import type { UpdateQueue } from './telegram-updates.ts';
import { unixNow } from './telegram-wire.ts';

export class UserMessages {
  private nextCallbackId = 1;

  constructor(
    private readonly chats: Chats,
    private readonly updates: UpdateQueue,
  ) {}

  /**
   * A text message. `replyTo` sets `reply_to_message` verbatim; `replyToMessageId` (see
   * MessageOpts) replies to a message sent earlier in the chat, by the user or the bot.
   */
  text(o: UserRef & MessageOpts & { text: string; replyTo?: object }): number {
    const message = this.chats.userMessage(o);
    message.text = o.text;
    const entities: object[] = [];
    let from = 0;
    if (o.text.startsWith('/')) {
      const length = o.text.split(/\s/, 1)[0]!.length;
      entities.push({ type: 'bot_command', offset: 0, length });
      from = length;
    }
    // Telegram marks every @username in a text as a `mention` entity.
    for (const m of o.text.slice(from).matchAll(/@\w{3,}/g))
      entities.push({ type: 'mention', offset: from + m.index, length: m[0].length });
    if (entities.length > 0) message.entities = entities;
    if (o.replyTo) message.reply_to_message = o.replyTo;
    return this.updates.pushUpdate({ message });
  }

  /** A press on a button of the bot's message `messageId` (default: its last in the chat). */
  callback(o: UserRef & { data: string; messageId?: number; threadId?: number }): number {
    const chatId = o.chatId ?? o.userId;
    const chat = this.chats.chat(chatId, o.userId);
    const messageId = o.messageId ?? this.chats.lastBotMessageId(chatId) ?? 1;
    const stored = this.chats.botMessage(chatId, messageId)?.message;
    const message = {
      ...(stored ?? { message_id: messageId, from: this.chats.me(), chat, date: unixNow() }),
    };
    if (o.threadId !== undefined) Object.assign(message, thread(o.threadId));
    return this.updates.pushUpdate({
      callback_query: {
        id: `cb${this.nextCallbackId++}`,
        from: this.chats.from(o.userId),
        chat_instance: `ci${chatId}`,
        data: o.data,
        message,
      },
    });
  }

  /**
   * A user's reaction (`emoji`; none: taken back) to message `messageId` of a chat, as a
   * `message_reaction` update (no topic: Telegram does not say it).
   */
  reaction(o: UserRef & { messageId: number; emoji?: string }): number {
    const chatId = o.chatId ?? o.userId;
    return this.updates.pushUpdate({
      message_reaction: {
        chat: this.chats.chat(chatId, o.userId),
        message_id: o.messageId,
        user: this.chats.from(o.userId),
        date: unixNow(),
        old_reaction: [],
        new_reaction: o.emoji === undefined ? [] : [{ type: 'emoji', emoji: o.emoji }],
      },
    });
  }

  /** A service message in a group: a topic closed or reopened, or the group migrated. */
  service(
    o: UserRef & { threadId?: number } & (
        | { closed: true }
        | { reopened: true }
        | { migrateTo: number }
      ),
  ): number {
    const chatId = o.chatId ?? o.userId;
    const message: Record<string, unknown> = {
      message_id: 900_000 + this.nextCallbackId++,
      from: this.chats.from(o.userId),
      chat: this.chats.chat(
        chatId,
        o.userId,
        undefined,
        o.threadId === undefined ? undefined : true,
      ),
      date: unixNow(),
      ...(o.threadId === undefined ? {} : thread(o.threadId)),
    };
    if ('closed' in o) message.forum_topic_closed = {};
    if ('reopened' in o) message.forum_topic_reopened = {};
    if ('migrateTo' in o) message.migrate_to_chat_id = o.migrateTo;
    return this.updates.pushUpdate({ message });
  }

  editedText(o: UserRef & { messageId: number; text: string }): number {
    const chatId = o.chatId ?? o.userId;
    const edited_message = {
      message_id: o.messageId,
      from: user(o.userId),
      chat: this.chats.chat(chatId, o.userId),
      date: unixNow() - 60,
      edit_date: unixNow(),
      text: o.text,
    };
    this.chats.editUserText(chatId, o.messageId, o.text);
    return this.updates.pushUpdate({ edited_message });
  }

  topicCreated(o: { userId: number; chatId: number; threadId: number; name: string }): number {
    const chat = this.chats.chat(o.chatId, o.userId, 'supergroup', true);
    const message = {
      message_id: o.threadId, // the topic's id is the id of its creation message
      from: user(o.userId),
      chat,
      date: unixNow(),
      ...thread(o.threadId),
      forum_topic_created: { name: o.name, icon_color: ICON_COLOR },
    };
    this.chats.keepUserMessage(message);
    return this.updates.pushUpdate({ message });
  }

  /** A forum topic renamed (`forum_topic_edited`), as a service message in the topic. */
  topicRenamed(o: { userId: number; chatId: number; threadId: number; name: string }): number {
    const message = {
      message_id: 800_000 + this.nextCallbackId++,
      from: this.chats.from(o.userId),
      chat: this.chats.chat(o.chatId, o.userId, 'supergroup', true),
      date: unixNow(),
      ...thread(o.threadId),
      forum_topic_edited: { name: o.name },
    };
    return this.updates.pushUpdate({ message });
  }

  location(
    o: UserRef &
      MessageOpts & {
        latitude: number;
        longitude: number;
        horizontalAccuracy?: number;
        livePeriod?: number;
      },
  ): number {
    const message = this.chats.userMessage(o);
    message.location = {
      latitude: o.latitude,
      longitude: o.longitude,
      ...(o.horizontalAccuracy === undefined ? {} : { horizontal_accuracy: o.horizontalAccuracy }),
      ...(o.livePeriod === undefined ? {} : { live_period: o.livePeriod }),
    };
    return this.updates.pushUpdate({ message });
  }

  /** A venue; like Telegram, the message also carries the venue's `location`. */
  venue(
    o: UserRef &
      MessageOpts & { latitude: number; longitude: number; title: string; address: string },
  ): number {
    const message = this.chats.userMessage(o);
    const location = { latitude: o.latitude, longitude: o.longitude };
    message.venue = { location, title: o.title, address: o.address };
    message.location = { ...location };
    return this.updates.pushUpdate({ message });
  }

  contact(
    o: UserRef &
      MessageOpts & {
        phoneNumber: string;
        firstName: string;
        lastName?: string;
        contactUserId?: number;
      },
  ): number {
    const message = this.chats.userMessage(o);
    message.contact = {
      phone_number: o.phoneNumber,
      first_name: o.firstName,
      ...(o.lastName === undefined ? {} : { last_name: o.lastName }),
      ...(o.contactUserId === undefined ? {} : { user_id: o.contactUserId }),
    };
    return this.updates.pushUpdate({ message });
  }
}
