import type { Channel, ChatAction } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { TextPart } from './compose.ts';
import { type Delivery, withPlainFallback } from './delivery.ts';
import type { Senders } from './senders.ts';

export interface LiveDeps {
  channel: Channel;
  delivery: Delivery;
  senders: Senders;
  /** The chats' serial lanes, shared with the durable rows. */
  lanes: {
    add<T>(chatId: number, task: () => Promise<T>): Promise<T>;
    busy(chatId: number): boolean;
  };
  /** Shutdown: nothing new is sent. */
  closed(): boolean;
}

/**
 * Calls that are not stored: typing, drafts, the live message of a streamed reply, callback
 * answers and topics. Typing and drafts never hold up a message: they are skipped while the
 * chat has a message on its way, and a newer one replaces one still waiting for a slot, so
 * none is ever sent late. Live messages ride the chat's lane, in order with its rows.
 */
export function createLive(deps: LiveDeps) {
  const { channel, delivery, senders, lanes } = deps;
  /** The side call of each chat and kind still waiting for a slot. */
  const waiting = new Map<string, AbortController>();

  async function side(to: Address, what: string, call: () => Promise<void>): Promise<void> {
    if (deps.closed() || lanes.busy(to.chatId)) return;
    const key = `${to.chatId}:${what}`;
    waiting.get(key)?.abort();
    const mine = new AbortController();
    waiting.set(key, mine);
    try {
      await delivery.optional(
        to,
        what,
        async () => {
          // Taken over by a message meanwhile: a late typing or draft would only mislead.
          if (!lanes.busy(to.chatId)) await call();
        },
        'side',
        mine.signal,
      );
    } finally {
      if (waiting.get(key) === mine) waiting.delete(key);
    }
  }

  return {
    chatAction(to: Address, action: ChatAction): Promise<void> {
      if (!channel.capabilities.chatActions) return Promise.resolve();
      return side(to, 'sendChatAction', () => channel.sendChatAction(to, action));
    },

    /** A streamed draft (private chats); skipped on failure, the next one replaces it. */
    draft(to: Address, draftId: number, part: TextPart): Promise<void> {
      return side(to, 'sendMessageDraft', () =>
        withPlainFallback(
          () => channel.sendDraft(to, draftId, part.html, { html: true }),
          () => channel.sendDraft(to, draftId, part.plain, { html: false }),
          () => undefined,
        ),
      );
    },

    /** Sends the first chunk of a streamed message; undefined when it could not be sent. */
    sendLive(to: Address, part: TextPart): Promise<number | undefined> {
      if (deps.closed()) return Promise.resolve(undefined);
      return lanes.add(to.chatId, async () => {
        const sent = await delivery.optional(
          to,
          'sendMessage',
          () => senders.sendPart(to, part),
          'message',
        );
        return sent?.messageId;
      });
    },

    /** Edits a streamed message in place; false when the edit was skipped. */
    editLive(to: Address, messageId: number, part: TextPart): Promise<boolean> {
      if (deps.closed()) return Promise.resolve(false);
      return lanes.add(to.chatId, async () => {
        const done = await delivery.optional(
          to,
          'editMessageText',
          () => senders.editPart(to, messageId, part).then(() => true),
          'message',
        );
        return done === true;
      });
    },

    /** Answers a button press; a failure is logged and nothing more. */
    async answerCallback(callbackId: string, text?: string): Promise<void> {
      const to: Address = { platform: 'tg', chatId: 0 };
      await delivery.optional(
        to,
        'answerCallbackQuery',
        () => channel.answerCallback(callbackId, text),
        'message',
      );
    },

    /** Creates a forum topic through the chat's lane; Telegram's refusal is thrown. */
    createTopic: (chatId: number, name: string): Promise<{ threadId: number }> =>
      lanes.add(chatId, () =>
        delivery.required({ platform: 'tg', chatId }, () => channel.createTopic(chatId, name)),
      ),
  };
}

export type Live = ReturnType<typeof createLive>;
