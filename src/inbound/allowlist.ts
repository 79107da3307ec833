import type { Clock } from '../core/clock.ts';
import type { InboundEvent } from '../core/types.ts';

export type GateDecision = 'allow' | 'deny-and-reply' | 'deny-silently';

const REPLY_COOLDOWN_MS = 10 * 60 * 1000;
/** Past this many remembered strangers, those whose cooldown is over are forgotten. */
const SWEEP_AT = 256;

/**
 * The allowlist gate, checked before anything else. A denied user is told once per
 * 10 minutes, and only in a private chat; in groups they are ignored silently.
 */
export function createAllowlist(allowedUserIds: readonly string[], clock: Clock) {
  const allowed = new Set(allowedUserIds);
  const lastReply = new Map<string, number>();

  return {
    /** Whether the sender is on the allowlist (nothing is remembered). */
    allows: (senderId: string): boolean => allowed.has(senderId),

    check(event: Pick<InboundEvent, 'senderId' | 'chatType'>): GateDecision {
      if (allowed.has(event.senderId)) return 'allow';
      if (event.chatType !== 'private') return 'deny-silently';
      const now = clock.now();
      const last = lastReply.get(event.senderId);
      if (last !== undefined && now - last < REPLY_COOLDOWN_MS) return 'deny-silently';
      if (lastReply.size >= SWEEP_AT) {
        for (const [id, at] of lastReply) if (now - at >= REPLY_COOLDOWN_MS) lastReply.delete(id);
      }
      lastReply.set(event.senderId, now);
      return 'deny-and-reply';
    },

    /** Strangers remembered for the reply cooldown. */
    get remembered(): number {
      return lastReply.size;
    },
  };
}
