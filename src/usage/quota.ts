import type { Clock } from '../core/clock.ts';
import { SatchelError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import type { Calendar } from './calendar.ts';
import type { ModelCatalog, PricedKind } from './catalog.ts';
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
  /**
   * The person whose daily caps apply (SPEC §19): the turn's first sender, a job's creator.
   * None for the owner, for a job's run in a group, and where no person started the work.
   */
  capPerson?: string | null | undefined;
  /** /compact may run over the session cap: it is how a full session continues. */
  ignoreSessionCap?: boolean | undefined;
}

/** The paid call about to be made: under a USD cap its model must have a price. */
export interface QuotaCall {
  kind: PricedKind;
  provider: string;
  model: string;
}

/** A cap was reached: no paid call is made; the message names the cap, the use and the reset. */
export class QuotaExceededError extends SatchelError {
  readonly cap: string;

  constructor(cap: string, userMessage: string) {
    super('quota_exceeded', `${cap} reached`, { userMessage });
    this.cap = cap;
  }
}

/**
 * A USD cap applies and the call's model has no price in the catalog: its cost could not be
 * counted against the cap, so the call is not made (SPEC §14; UNKNOWN_PRICE=allow lets it).
 */
export class QuotaUnpricedError extends QuotaExceededError {
  constructor(call: QuotaCall, cap: string, catalogFile: string) {
    super(
      cap,
      `${call.provider}:${call.model} has no price, so it cannot run under the ${cap}. ` +
        `Add its price to ${catalogFile} (or set UNKNOWN_PRICE=allow) and restart.`,
    );
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
  catalog: ModelCatalog;
  /** `allow`: calls on unpriced models go ahead under a USD cap (booked with a null cost). */
  unknownPrice?: 'refuse' | 'allow' | undefined;
  /** A person's daily caps (PERSON_DAILY_*, or theirs set by `/people cap`); none: no cap. */
  personCaps?: ((person: string) => PackCaps | undefined) | undefined;
}) {
  const { caps, totals, calendar, clock, log, catalog } = deps;

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

  /**
   * A person's own caps (SPEC §19): said to that person, in their words; the owner's turns and
   * everyone else's go on.
   */
  function checkPerson(person: string, cap: PackCaps): void {
    const spent = totals.personDay(person, calendar.dayOf(clock.now()));
    const over = (what: string, used: string, limit: string): never => {
      log.warn(
        { event: 'quota_exceeded', cap: `person ${what}`, person, used, limit },
        'quota exceeded',
      );
      throw new QuotaExceededError(
        `person's daily ${what} cap`,
        `You reached your daily ${what} cap: ${used} of ${limit} used. The owner of this assistant sets it. ${resetText()}`,
      );
    };
    if (cap.dailyTokens && spent.tokens >= cap.dailyTokens)
      over('token', tokens(spent.tokens), tokens(cap.dailyTokens));
    if (cap.dailyUsd && spent.costUsd >= cap.dailyUsd)
      over('spend', usd(spent.costUsd), usd(cap.dailyUsd));
  }

  /** Throws when a day's use (`owner` names whose caps: '' for the bot's own) reaches a cap. */
  function checkDay(
    owner: string,
    spent: { tokens: number; costUsd: number },
    cap: PackCaps,
  ): void {
    if (cap.dailyTokens && spent.tokens >= cap.dailyTokens)
      exceed(`${owner}daily token cap`, tokens(spent.tokens), tokens(cap.dailyTokens), resetText());
    if (cap.dailyUsd && spent.costUsd >= cap.dailyUsd)
      exceed(`${owner}daily spend cap`, usd(spent.costUsd), usd(cap.dailyUsd), resetText());
  }

  /** Refuses a call whose model has no price while a USD cap applies to it. */
  function requirePrice(scope: QuotaScope, call: QuotaCall): void {
    if (deps.unknownPrice === 'allow') return;
    const cap =
      caps.dailyUsd > 0
        ? 'daily spend cap'
        : scope.packCaps?.dailyUsd
          ? `${scope.pack} pack's daily spend cap`
          : scope.capPerson && deps.personCaps?.(scope.capPerson)?.dailyUsd
            ? "person's daily spend cap"
            : undefined;
    if (!cap || catalog.priced(call.provider, call.model, call.kind)) return;
    log.warn(
      { event: 'quota_unpriced', ...call, cap, catalog: catalog.file },
      'a call on a model without a price was refused under a USD cap',
    );
    throw new QuotaUnpricedError(call, cap, catalog.file);
  }

  return {
    /**
     * Throws QuotaExceededError when any cap that applies is reached, or when `call`'s model
     * has no price and a USD cap applies (QuotaUnpricedError).
     */
    check(scope: QuotaScope, call?: QuotaCall): void {
      totals.together(() => checkAll(scope, call));
    },
  };

  function checkAll(scope: QuotaScope, call: QuotaCall | undefined): void {
    if (call) requirePrice(scope, call);
    const day = calendar.dayOf(clock.now());
    checkDay('', totals.day(day), caps);
    const packCaps = scope.packCaps;
    if (packCaps?.dailyTokens || packCaps?.dailyUsd)
      checkDay(`${scope.pack} pack's `, totals.packDay(scope.pack, day), packCaps);
    const personCaps = scope.capPerson ? deps.personCaps?.(scope.capPerson) : undefined;
    if (scope.capPerson && (personCaps?.dailyTokens || personCaps?.dailyUsd))
      checkPerson(scope.capPerson, personCaps);
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
  }
}

export type QuotaGate = ReturnType<typeof createQuotaGate>;
