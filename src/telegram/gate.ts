import type { Clock } from '../core/clock.ts';
import type { Verdict } from '../core/edge.ts';
import type { PairingGate } from '../core/pairing.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import { createAllowlist, type GateDecision } from '../inbound/allowlist.ts';
import { plain } from '../outbound/compose.ts';
import { idOut, TELEGRAM_PLATFORM } from './ids.ts';

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
 * What a stranger in a private chat is told with DM_PAIRING=on (SPEC §18): the code to give
 * the owner. Without an owner (an empty allowlist) the bot's owner is told how to approve it.
 */
export function pairingText(senderId: string, code: string, ownerKnown: boolean): string {
  return [
    'This is a private assistant. To use it, give this pairing code to its owner:',
    code,
    `The code is valid for an hour; the owner lets you in by sending /pair ${code}.`,
    ownerKnown
      ? `Your Telegram user id is ${senderId}.`
      : `Your Telegram user id is ${senderId}. If this is your bot, run npx satchel pair ${code}, or add the id to ALLOWED_USER_IDS.`,
  ].join('\n');
}

/**
 * Telegram's gate (SPEC §2 step 2), before anything else: an allowed or paired sender
 * passes; anyone else is logged (`tg_auth_denied`) and ignored in groups. In a private chat
 * a stranger gets a pairing code with DM_PAIRING=on (a new code at once, the same one again
 * at most once per 10 minutes, nothing past the limits, and the owner told when pairing
 * is full), else the plain refusal once per 10 minutes. A stranger's reaction is only logged, at debug.
 */
export function createTelegramGate(deps: {
  /** ALLOWED_USER_IDS, as Telegram's ids come in (their decimal digits). */
  allowedUserIds: readonly string[];
  clock: Clock;
  log: Logger;
  /** Paired users pass; with `offerCodes` (DM_PAIRING=on) strangers get codes. */
  pairing: PairingGate;
  offerCodes: boolean;
  /** The owner's id: told in their private chat when pairing is full. None: nobody is told. */
  owner?: string | undefined;
}) {
  const allowlist = createAllowlist(deps.allowedUserIds, deps.clock);
  const known = (senderId: string) =>
    allowlist.allows(senderId) || deps.pairing.isPaired(TELEGRAM_PLATFORM, senderId);
  return (event: InboundEvent): Verdict => {
    // A group's own changes (a topic closed, a migration) are facts about the chat, not prompts.
    if (event.kind === 'chat_change' || known(event.senderId)) return 'allow';
    // A stranger's reaction (anyone in a group may react to the bot's messages) is common
    // and asks for nothing: dropped with a debug line, and no reply or cooldown spent on it.
    if (event.kind === 'reaction') {
      deps.log.debug(denial(event), 'reaction from a sender not on the allowlist ignored');
      return { deny: true };
    }
    const decision = allowlist.check(event);
    deps.log.warn(denial(event), 'sender not on the allowlist');
    if (deps.offerCodes && event.chatType === 'private') return offerCode(event, decision);
    return decision === 'deny-and-reply'
      ? { deny: true, reply: plain(notAuthorized(event.senderId)) }
      : { deny: true };
  };

  /** A new code is always said; one held already within the reply cooldown is not. */
  function offerCode(event: InboundEvent, decision: GateDecision): Verdict {
    const outcome = deps.pairing.request({
      platform: TELEGRAM_PLATFORM,
      userId: event.senderId,
      chatId: event.address.chatId,
      name: event.senderName,
    });
    if (outcome.kind === 'limited') {
      if (outcome.tellOwner === undefined || deps.owner === undefined) return { deny: true };
      // The owner's private chat has their own id.
      const to = { platform: TELEGRAM_PLATFORM, chatId: deps.owner };
      return { deny: true, tellOwner: { to, message: plain(outcome.tellOwner) } };
    }
    if (outcome.kind === 'pending' && decision !== 'deny-and-reply') return { deny: true };
    const text = pairingText(event.senderId, outcome.code, deps.allowedUserIds.length > 0);
    return { deny: true, reply: plain(text) };
  }
}

const denial = (event: InboundEvent) => ({
  event: 'tg_auth_denied',
  userId: idOut(event.senderId),
  chatId: idOut(event.address.chatId),
  kind: event.kind,
});
