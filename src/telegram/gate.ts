import type { Clock } from '../core/clock.ts';
import type { Verdict } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import { createAllowlist } from '../inbound/allowlist.ts';
import { plain } from '../outbound/compose.ts';

/**
 * The one reply a stranger gets. It carries their own numeric id (nothing about anyone
 * else), so the owner's first message to a fresh bot says what to put in ALLOWED_USER_IDS.
 */
export function notAuthorized(senderId: number): string {
  return [
    'Sorry, this is a private assistant and you are not authorized to use it.',
    `Your Telegram user id is ${senderId}. If this is your bot, add it to ALLOWED_USER_IDS ` +
      'in its configuration (comma-separated for several) and restart it.',
  ].join('\n');
}

/**
 * Telegram's gate (SPEC §2 step 2), before anything else: an allowed sender passes; anyone
 * else is logged (`tg_auth_denied`) and told once per 10 minutes in a private chat, and
 * ignored in groups.
 */
export function createTelegramGate(deps: {
  allowedUserIds: readonly number[];
  clock: Clock;
  log: Logger;
}) {
  const allowlist = createAllowlist(deps.allowedUserIds, deps.clock);
  return (event: InboundEvent): Verdict => {
    // A group's own changes (a topic closed, a migration) are facts about the chat, not prompts.
    if (event.kind === 'chat_change') return 'allow';
    const decision = allowlist.check(event);
    if (decision === 'allow') return 'allow';
    deps.log.warn(
      {
        event: 'tg_auth_denied',
        userId: event.senderId,
        chatId: event.address.chatId,
        kind: event.kind,
      },
      'sender not on the allowlist',
    );
    return decision === 'deny-and-reply' && event.kind !== 'reaction'
      ? { deny: true, reply: plain(notAuthorized(event.senderId)) }
      : { deny: true };
  };
}
