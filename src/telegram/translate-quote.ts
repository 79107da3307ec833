import { type BotIdentity, nameOf } from './addressing.ts';
import { idIn } from './ids.ts';
import type { WireMessage } from './update-schema.ts';

/** The longest quote (in UTF-16 units, ellipsis included) an event carries. */
export const QUOTE_MAX_CHARS = 1000;

/** Whose words count as the owner's in a quote (SPEC §17, §19). */
export interface QuoteTrust {
  /** The bot: its own answers are not someone else's words. */
  bot: BotIdentity | undefined;
  /** The owner's Telegram id (the first allowed id). */
  owner: number | undefined;
}

type Replied = NonNullable<WireMessage['reply_to_message']>;
type Origin = NonNullable<WireMessage['forward_origin']>;

/**
 * What a reply quotes and who wrote it. The text is the part the user selected (`quote`,
 * also set for replies to another chat), else the replied-to message's text or caption;
 * trimmed and cut to QUOTE_MAX_CHARS. In a forum topic every message "replies" to the topic's
 * creation message: that is not a quote, and neither is a replied-to message without text.
 *
 * `quoteFrom` names the author when the words are someone else's (SPEC §17): another group
 * member, the origin of a forwarded message (not the person who forwarded it), another chat
 * (`external_reply`), a channel or an anonymous admin. It is left out when the sender, the
 * bot or the owner wrote them: in a person's private chat their own words count as the
 * owner's (§19).
 */
export function quoteOf(
  message: WireMessage,
  trust: QuoteTrust,
): { quote?: string; quoteFrom?: string } {
  const target = message.reply_to_message;
  if (target && isTopicRoot(message, target)) return {};
  const raw = message.quote?.text ?? target?.text ?? target?.caption;
  const text = raw?.trim();
  if (!text) return {};
  const author = authorOf(message, trust);
  return {
    quote: cut(text, QUOTE_MAX_CHARS),
    ...(author === undefined ? {} : { quoteFrom: author }),
  };
}

/**
 * The id of the message this one replies to in its chat, when it replies to one: not a
 * topic's creation message, which every message in a topic "replies" to.
 */
export function replyToOf(message: WireMessage): { replyTo?: string } {
  const target = message.reply_to_message;
  if (target?.message_id === undefined || isTopicRoot(message, target)) return {};
  return { replyTo: idIn(target.message_id) };
}

/** Who wrote the quoted words, as the envelope names them; undefined for a trusted author. */
function authorOf(message: WireMessage, trust: QuoteTrust): string | undefined {
  const trusted = (id: number) =>
    id === message.from?.id || id === trust.owner || id === trust.bot?.id;
  if (message.external_reply) {
    const origin = message.external_reply.origin;
    const id = origin?.sender_user?.id;
    if (id !== undefined && trusted(id)) return undefined;
    const name = origin && originName(origin);
    return name ? `${name} in another chat` : 'another chat';
  }
  const target = message.reply_to_message;
  if (!target) return 'someone';
  if (target.forward_origin)
    return `a forwarded message from ${originName(target.forward_origin) ?? 'someone'}`;
  // A channel's post, or an anonymous admin's message: the chat speaks, not a person.
  if (target.sender_chat) return target.sender_chat.title?.trim() || 'a chat';
  const from = target.from;
  if (!from) return 'someone';
  // Before the bot's identity is known, a bot's message is taken for its own.
  if (trusted(from.id) || (trust.bot === undefined && from.is_bot === true)) return undefined;
  return nameOf(from)?.trim() || 'someone';
}

/** Who wrote a forwarded message, as the envelope names it. */
export function forwardedOf(message: WireMessage): { forwardedFrom?: string } {
  const origin = message.forward_origin;
  return origin ? { forwardedFrom: originName(origin) ?? 'someone' } : {};
}

/** The name an origin gives: the user, the hidden user's name, the chat or channel. */
function originName(origin: Origin): string | undefined {
  const name =
    (origin.sender_user && nameOf(origin.sender_user)) ??
    origin.sender_user_name ??
    origin.chat?.title ??
    origin.sender_chat?.title;
  return name?.trim() || undefined;
}

function isTopicRoot(message: WireMessage, target: Replied): boolean {
  if (target.forum_topic_created) return true;
  // Some clients omit the service message's content; its id is the topic's id.
  return message.is_topic_message === true && target.message_id === message.message_thread_id;
}

/** Cuts to at most `max` UTF-16 units with an ellipsis, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}
