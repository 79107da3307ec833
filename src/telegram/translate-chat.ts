import type { ChatType, InboundEvent, InboundPayload } from '../core/types.ts';
import { nameOf } from './addressing.ts';
import { idIn, TELEGRAM_PLATFORM } from './ids.ts';
import type { WireMessage, WireReaction } from './update-schema.ts';

type ChatChange = Extract<InboundPayload, { kind: 'chat_change' }>;

/**
 * A service message that changes the conversation itself: a forum topic closed or reopened,
 * a group upgraded to a supergroup (`migrate_to_chat_id`, sent in the old chat).
 */
export function chatChangeOf(message: WireMessage): ChatChange | undefined {
  if (message.migrate_to_chat_id !== undefined)
    return { kind: 'chat_change', change: 'moved', movedTo: idIn(message.migrate_to_chat_id) };
  if (message.forum_topic_closed) return { kind: 'chat_change', change: 'topic_closed' };
  if (message.forum_topic_reopened) return { kind: 'chat_change', change: 'topic_reopened' };
  return undefined;
}

/**
 * A user's reaction to a message: the first emoji they now show on it. A reaction taken back
 * (no reactions left) or from an anonymous admin (no user) is nothing to tell. Telegram does
 * not say the topic: the core finds it from the bot's message.
 */
export function reactionOf(
  reaction: WireReaction,
  updateId: number,
  receivedAt: number,
): InboundEvent | undefined {
  const first = reaction.new_reaction?.[0];
  if (!first || !reaction.user) return undefined;
  const emoji = first.emoji ?? (first.type === 'paid' ? '⭐' : '(a custom emoji)');
  const senderName = nameOf(reaction.user);
  return {
    origin: { platform: TELEGRAM_PLATFORM, keys: [`update:${updateId}`] },
    address: { platform: TELEGRAM_PLATFORM, chatId: idIn(reaction.chat.id) },
    chatType: reaction.chat.type as ChatType,
    senderId: idIn(reaction.user.id),
    ...(senderName === undefined ? {} : { senderName }),
    messageId: idIn(reaction.message_id),
    receivedAt,
    kind: 'reaction',
    emoji,
  };
}
