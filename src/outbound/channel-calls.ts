import type { Channel } from '../core/ports.ts';
import type { Address, ChatType } from '../core/types.ts';
import type { Outbox } from './outboxes.ts';
import { type StreamMode, streamModeFor } from './stream.ts';

/**
 * What only some channels can do, for the conversation's own channel: how a reply streams,
 * answering a pressed button, creating a forum topic. Button answers and topics go through
 * the outbox, so they count against the channel's limit like every call.
 */
export function createChannelCalls(
  channelOf: (platform: string) => Channel | undefined,
  outbox: Pick<Outbox, 'call' | 'callOptional' | 'callSide'>,
) {
  return {
    streamMode(address: Address, chatType: ChatType): StreamMode {
      const channel = channelOf(address.platform);
      return channel ? streamModeFor(channel, chatType) : 'none';
    },

    async answerButton(to: Address, callbackId: string, notice?: string): Promise<void> {
      const channel = channelOf(to.platform);
      const answer = channel?.answerCallback?.bind(channel);
      if (!answer) return;
      const chat = { platform: to.platform, chatId: '' };
      await outbox.callOptional(chat, 'answerCallback', () => answer(callbackId, notice));
    },

    /**
     * Sets (or with undefined, removes) the bot's reaction on a message: best effort, once,
     * never rejects, and nobody waits for it.
     */
    async react(to: Address, messageId: string, emoji: string | undefined): Promise<void> {
      const channel = channelOf(to.platform);
      const set = channel?.setReaction?.bind(channel);
      if (!set) return;
      // Below messages: a reaction never holds up a reply (SPEC §4's budget is shared).
      await outbox.callSide(to, 'setReaction', () => set(to, messageId, emoji));
    },

    topics(to: Address): ((name: string) => Promise<{ threadId: string }>) | undefined {
      const channel = channelOf(to.platform);
      const create = channel?.createTopic?.bind(channel);
      if (!create) return undefined;
      const chat = { platform: to.platform, chatId: to.chatId };
      return (name) => outbox.call(chat, () => create(to.chatId, name));
    },
  };
}
