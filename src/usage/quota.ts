import type { Clock } from '../core/clock.ts';
import { SatchelError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import type { Calendar } from './calendar.ts';
import { usd } from './money.ts';
import type { UsageTotals } from './totals.ts';

export interface Caps {
  dailyTokens: number;
  sessionTokens: number;
  dailyUsd: number;
}

export interface PackCaps {
  dailyTokens?: number | undefined;
  dailyUsd?: number | undefined;
}

export interface QuotaScope {
  pack: string;
  sessionId: string;
  packCaps?: PackCaps | undefined;
  /** /compact may run over the session cap: it is how a full session continues. */
  ignoreSessionCap?: boolean | undefined;
}

/** A cap was reached: no paid call is made; the message names the cap, the use and the reset. */
export class QuotaExceededError extends SatchelError {
  readonly cap: string;

  constructor(cap: string, userMessage: string) {
    super('quota_exceeded', `${cap} reached`, { userMessage });
    this.cap = cap;
  }
}

const tokens = (n: number) => `${Math.round(n).toLocaleString('en-US')} tokens`;

/**
 * The quota gate, checked before every paid call. A cap is reached when the ledger's total
 * is at or above it, so the call that crosses a cap is the last one made. 0 means no cap.
 */
export function createQuotaGate(deps: {
  caps: Caps;
  totals: UsageTotals;
  calendar: Calendar;
  clock: Clock;
  log: Logger;
}) {
  const { caps, totals, calendar, clock, log } = deps;

  function resetText(): string {
    const now = clock.now();
    const next = calendar.nextDayStart(now);
    const minutes = Math.max(1, Math.round((next - now) / 60_000));
    const wait =
      minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
    return `It resets at midnight (${calendar.timezone}), in ${wait}.`;
  }

  function exceed(cap: string, used: string, limit: string, reset: string): never {
    log.warn({ event: 'quota_exceeded', cap, used, limit }, 'quota exceeded');
    throw new QuotaExceededError(cap, `The ${cap} is reached: ${used} of ${limit} used. ${reset}`);
  }

  return {
    /** Throws QuotaExceededError when any cap that applies is reached. */
    check(scope: QuotaScope): void {
      const day = calendar.dayOf(clock.now());
      const today = totals.day(day);
      if (caps.dailyTokens > 0 && today.tokens >= caps.dailyTokens)
        exceed('daily token cap', tokens(today.tokens), tokens(caps.dailyTokens), resetText());
      if (caps.dailyUsd > 0 && today.costUsd >= caps.dailyUsd)
        exceed('daily spend cap', usd(today.costUsd), usd(caps.dailyUsd), resetText());
      const packCaps = scope.packCaps;
      if (packCaps?.dailyTokens || packCaps?.dailyUsd) {
        const pack = totals.packDay(scope.pack, day);
        if (packCaps.dailyTokens && pack.tokens >= packCaps.dailyTokens)
          exceed(
            `${scope.pack} pack's daily token cap`,
            tokens(pack.tokens),
            tokens(packCaps.dailyTokens),
            resetText(),
          );
        if (packCaps.dailyUsd && pack.costUsd >= packCaps.dailyUsd)
          exceed(
            `${scope.pack} pack's daily spend cap`,
            usd(pack.costUsd),
            usd(packCaps.dailyUsd),
            resetText(),
          );
      }
      if (caps.sessionTokens > 0 && !scope.ignoreSessionCap) {
        const session = totals.session(scope.sessionId);
        if (session.tokens >= caps.sessionTokens)
          exceed(
            'session token cap',
            tokens(session.tokens),
            tokens(caps.sessionTokens),
            'Send /compact to continue in a fresh session with a summary, or /new to start over.',
          );
      }
    },
  };
}

export type QuotaGate = ReturnType<typeof createQuotaGate>;
