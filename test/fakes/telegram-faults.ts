/**
 * Fault scripting for the fake Telegram server: the next calls of a method (or those matching
 * a predicate) fail as Telegram fails them (429 with retry_after, 400/401/409, 5xx), get no
 * answer at all (`drop`), or are carried out with their answer lost (`lost`); a method can
 * also be made slow (`delay`).
 */
import { fail, type Params, type Reply, safely } from './telegram-wire.ts';

export type Fault =
  | { status: 429; retryAfter: number }
  | { status: 400 | 401 | 409; description: string }
  | { status: 500 | 502 }
  /** No answer at all: the connection is closed, as when Telegram cannot be reached. */
  | { status: 'drop' }
  /** The call is carried out, but its answer is lost: the connection closes before it. */
  | { status: 'lost' };

interface FaultRule {
  method: string;
  predicate?: (params: Params) => boolean;
  fault: Fault;
  remaining: number;
}

export class Faults {
  private rules: FaultRule[] = [];
  private readonly delays = new Map<string, number>();

  fail(method: string, fault: Fault, times = 1): void {
    this.rules.push({ method, fault, remaining: times });
  }

  failWhen(method: string, predicate: (params: Params) => boolean, fault: Fault, times = 1): void {
    this.rules.push({ method, predicate, fault, remaining: times });
  }

  failAlways(method: string, fault: Fault): void {
    this.rules.push({ method, fault, remaining: Number.POSITIVE_INFINITY });
  }

  /** Calls still to be failed by injected faults (of `method` only, when given). */
  pendingFaults(method?: string): number {
    return this.rules
      .filter((r) => method === undefined || r.method === method)
      .reduce((n, r) => n + r.remaining, 0);
  }

  clearFaults(): void {
    this.rules = [];
  }

  /** Responds to every later call of `method` after `ms` (0 removes the delay). */
  delay(method: string, ms: number): void {
    if (ms > 0) this.delays.set(method, ms);
    else this.delays.delete(method);
  }

  /** How long an answer to `method` is held back (0: not at all). */
  delayOf(method: string): number {
    return this.delays.get(method) ?? 0;
  }

  /** The fault this call gets, if one is scripted; it counts as used. */
  take(method: string, params: Params): Fault | undefined {
    const rule = this.rules.find(
      (r) => r.method === method && (!r.predicate || safely(() => r.predicate!(params))),
    );
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return rule.fault;
  }
}

/** The error Telegram answers with for a fault that does get an answer. */
export function faultReply(fault: Exclude<Fault, { status: 'drop' | 'lost' }>): Reply {
  if (fault.status === 429) {
    const { retryAfter } = fault;
    return {
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter}`,
      parameters: { retry_after: retryAfter },
    };
  }
  if (fault.status === 400 || fault.status === 401 || fault.status === 409)
    return fail(fault.status, fault.description);
  return fail(fault.status, fault.status === 500 ? 'Internal Server Error' : 'Bad Gateway');
}
