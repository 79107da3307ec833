import type { Clock } from '../core/clock.ts';
import type { Verdict } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import { createAllowlist } from '../inbound/allowlist.ts';
import { plain } from '../outbound/compose.ts';
import { idIn, idOut } from './ids.ts';

/**
 * The one reply a stranger gets. It carries their own numeric id (nothing about anyone
 * else), so the owner's first message to a fresh bot says what to put in ALLOWED_USER_IDS.
 */
export function notAuthorized(senderId: string): string {
  return [
    'Sorry, this is a private assistant and you are not authorized to use it.',
    `Your Telegram user id is ${senderId}. If this is your bot, add it to ALLOWED_USER_IDS ` +
      'in its configuration (comma-separated for several) and restart it.',
  ].join('\n');
}

/**
 * Telegram's gate (SPEC §2 step 2), before anything else: an allowed sender passes; anyone
 * else is logged (`tg_auth_denied`) and told once per 10 minutes in a private chat, and
 * ignored in groups; a stranger's reaction is only logged, at debug.
 */
export function createTelegramGate(deps: {
  allowedUserIds: readonly number[];
  clock: Clock;
  log: Logger;
}) {
  const allowlist = createAllowlist(deps.allowedUserIds.map(idIn), deps.clock);
  return (event: InboundEvent): Verdict => {
    // A group's own changes (a topic closed, a migration) are facts about the chat, not prompts.
    if (event.kind === 'chat_change') return 'allow';
    // A stranger's reaction (anyone in a group may react to the bot's messages) is common
    // and asks for nothing: dropped with a debug line, and no reply or cooldown spent on it.
    if (event.kind === 'reaction' && !allowlist.allows(event.senderId)) {
      deps.log.debug(denial(event), 'reaction from a sender not on the allowlist ignored');
      return { deny: true };
    }
    const decision = allowlist.check(event);
    if (decision === 'allow') return 'allow';
    deps.log.warn(denial(event), 'sender not on the allowlist');
    return decision === 'deny-and-reply'
      ? { deny: true, reply: plain(notAuthorized(event.senderId)) }
      : { deny: true };
  };
}

const denial = (event: InboundEvent) => ({
  event: 'tg_auth_denied',
  userId: idOut(event.senderId),
  chatId: idOut(event.address.chatId),
  kind: event.kind,
});
