import type { Channel, ChatAction, TextPart } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { type Delivery, withPlainFallback } from './delivery.ts';
import type { GoneThreads } from './gone-threads.ts';
import type { Senders } from './senders.ts';

export interface LiveDeps {
  channel: Channel;
  delivery: Delivery;
  senders: Senders;
  /** The chats' serial lanes, shared with the durable rows. */
  lanes: {
    add<T>(chatId: string, task: () => Promise<T>): Promise<T>;
    busy(chatId: string): boolean;
  };
  /** Shutdown: nothing new is sent. */
  closed(): boolean;
  /** Topics known to be deleted: live calls into them are skipped, a refusal is noted. */
  gone: GoneThreads;
}

/**
 * Calls that are not stored: typing, drafts, the live message of a streamed reply, and other
 * channel calls made through the limiter (`call`, `callOptional`). Typing and drafts never
 * hold up a message: they are skipped while the chat has a message on its way, and a newer
 * one replaces one still waiting for a slot, so none is ever sent late. Live messages ride
 * the chat's lane, in order with its rows. What the channel lacks is skipped: no chat
 * actions, no drafts (the final text alone is sent), no edits (`editLive` is false). A call
 * refused because its topic was deleted pauses the topic's jobs (gone-threads.ts), and no
 * live call goes into that topic again: a streamed reply stops calling at once.
 */
export function createLive(deps: LiveDeps) {
  const { channel, delivery, senders, lanes, gone } = deps;
  /** The side call of each chat and kind still waiting for a slot. */
  const waiting = new Map<string, AbortController>();

  /** Makes `call`, noting a refusal that says `to`'s topic is gone (then rethrown). */
  async function noting<T>(to: Address, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      gone.note(to, error);
      throw error;
    }
  }

  async function side(to: Address, what: string, call: () => Promise<void>): Promise<void> {
    if (deps.closed() || lanes.busy(to.chatId) || gone.has(to)) return;
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
          if (!lanes.busy(to.chatId) && !gone.has(to)) await noting(to, call);
        },
        'side',
        mine.signal,
      );
    } finally {
      if (waiting.get(key) === mine) waiting.delete(key);
    }
  }

  return {
    /** Shows a chat action; nothing when the channel has none. */
    chatAction(to: Address, action: ChatAction): Promise<void> {
      const show = channel.sendChatAction?.bind(channel);
      if (!show) return Promise.resolve();
      return side(to, 'sendChatAction', () => show(to, action));
    },

    /**
     * A streamed draft (private chats); skipped on failure, the next one replaces it. Nothing
     * when the channel has no drafts.
     */
    draft(to: Address, draftId: number, part: TextPart): Promise<void> {
      const draft = channel.sendDraft?.bind(channel);
      if (!draft) return Promise.resolve();
      return side(to, 'sendMessageDraft', () =>
        withPlainFallback(
          () => draft(to, draftId, part.text, { formatted: true }),
          () => draft(to, draftId, part.plain, { formatted: false }),
          () => undefined,
        ),
      );
    },

    /**
     * Drops the chat's typing or draft still waiting for a slot: once the turn is over (or
     * its final text is on its way) it would only arrive late and mislead.
     */
    dropWaiting(to: Address, what: 'sendChatAction' | 'sendMessageDraft'): void {
      waiting.get(`${to.chatId}:${what}`)?.abort();
    },

    /** Sends the first chunk of a streamed message; undefined when it could not be sent. */
    sendLive(to: Address, part: TextPart): Promise<string | undefined> {
      if (deps.closed()) return Promise.resolve(undefined);
      return lanes.add(to.chatId, async () => {
        if (gone.has(to)) return undefined;
        const sent = await delivery.optional(
          to,
          'sendMessage',
          () => noting(to, () => senders.sendPart(to, part)),
          'message',
        );
        return sent?.messageId;
      });
    },

    /** Edits a streamed message in place; false when the edit was skipped (or impossible). */
    editLive(to: Address, messageId: string, part: TextPart): Promise<boolean> {
      if (deps.closed() || !channel.editText) return Promise.resolve(false);
      return lanes.add(to.chatId, async () => {
        if (gone.has(to)) return false;
        const done = await delivery.optional(
          to,
          'editMessageText',
          () => noting(to, () => senders.editLive(to, messageId, part)),
          'message',
        );
        return done === true;
      });
    },

    /**
     * Makes one channel call that is not a message (creating a topic) in the chat's lane,
     * under the global limiter and the chat's flood pause; `transient` failures are retried.
     * Rejects with the ChannelError when the channel refuses it, or when shut down.
     */
    call<T>(to: Address, fn: () => Promise<T>): Promise<T> {
      return lanes.add(to.chatId, () => delivery.required(to, fn));
    },

    /**
     * Makes one best-effort channel call (answering a button press) under the global limiter:
     * made once, skipped while the chat is under a flood wait, a failure logged and nothing
     * more. Resolves with undefined when skipped or failed; never rejects.
     */
    callOptional<T>(to: Address, method: string, fn: () => Promise<T>): Promise<T | undefined> {
      return delivery.optional(to, method, fn, 'message');
    },

    /**
     * `callOptional` for a call no message should wait behind (a reaction): it takes a slot
     * only after the messages waiting for one, like typing, and never one kept for them.
     */
    callSide<T>(to: Address, method: string, fn: () => Promise<T>): Promise<T | undefined> {
      return delivery.optional(to, method, fn, 'side');
    },
  };
}

export type Live = ReturnType<typeof createLive>;
