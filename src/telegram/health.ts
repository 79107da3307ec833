import type { Clock } from '../core/clock.ts';
import type { EdgeHealth } from '../core/edge.ts';

/** What the long-polling or the webhook ingress says of itself (its `status()`). */
export interface IngressStatus {
  polling: boolean;
  lastFetchAt?: number;
  lastUpdateAt?: number;
  mode?: 'polling' | 'webhook';
}

/**
 * A long poll ends within about 45 s (30 s of waiting plus slack); past twice that without
 * an answer, Telegram has not been reached for a while (the poller keeps retrying).
 */
export const POLL_STALE_MS = 90_000;

/**
 * Telegram's part of `/healthz`: healthy while updates can come in — polling runs and
 * Telegram answered recently, or the webhook is up (a quiet webhook is not a stale one).
 */
export function telegramHealth(ingress: { status(): IngressStatus }, clock: Clock) {
  return (): EdgeHealth => {
    const now = clock.now();
    const status = ingress.status();
    const age = (at: number | undefined) => (at === undefined ? null : Math.max(0, now - at));
    const lastPoll = age(status.lastFetchAt);
    const mode = status.mode ?? 'polling';
    const fresh = mode === 'webhook' || (lastPoll !== null && lastPoll < POLL_STALE_MS);
    return {
      ok: status.polling && fresh,
      fields: {
        mode,
        polling: status.polling,
        last_poll_age_ms: lastPoll,
        last_update_age_ms: age(status.lastUpdateAt),
      },
    };
  };
}
