import { type Clock, sleep } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { failureCause } from './errors.ts';

/**
 * Logs a run of failures of one kind as two lines: the first failure, with its cause and
 * when the next try is, and the recovery. The tries in between go to debug (event `retry`),
 * so an outage of an hour is not thousands of warnings.
 */
export interface OutageLog {
  failed(error: unknown, retryInMs: number): void;
  recovered(): void;
}

export interface OutageEvents {
  /** What is retried, in the debug lines (`telegram`, `inbox`). */
  subject: string;
  down: { event: string; msg: string; level: 'warn' | 'error' };
  up: { event: string; msg: string };
  /** One line an operator can act on. */
  cause(error: unknown): string;
  /** Called after the recovery line: what waited for the other side can go now. */
  onRecovered?(): void;
}

export function createOutageLog(log: Logger, clock: Clock, events: OutageEvents): OutageLog {
  let failures = 0;
  let since = 0;
  return {
    failed(error, retryInMs) {
      failures += 1;
      const cause = events.cause(error);
      if (failures === 1) {
        since = clock.now();
        log[events.down.level](
          { event: events.down.event, cause, retryInMs, err: error },
          events.down.msg,
        );
      } else {
        log.debug({ event: 'retry', of: events.subject, attempt: failures, retryInMs, cause });
      }
    },
    recovered() {
      if (failures === 0) return;
      log.info(
        { event: events.up.event, failedAttempts: failures, downForMs: clock.now() - since },
        events.up.msg,
      );
      failures = 0;
      events.onRecovered?.();
    },
  };
}

/**
 * The outage log of calls to Telegram (`tg_unreachable`, then `tg_reachable` and
 * `onReachable`): one for long polling, one for the webhook's registration.
 */
export function telegramOutageLog(log: Logger, clock: Clock, onReachable?: () => void): OutageLog {
  return createOutageLog(log, clock, {
    subject: 'telegram',
    down: { event: 'tg_unreachable', level: 'warn', msg: 'cannot reach Telegram; retrying' },
    up: { event: 'tg_reachable', msg: 'Telegram is reachable again' },
    cause: failureCause,
    ...(onReachable ? { onRecovered: onReachable } : {}),
  });
}

/**
 * Backoff while Telegram cannot be reached: 0.5 s doubling to at most 2 s, so the first try
 * after an outage of any length comes within 2 s of its end (SPEC §4: pending replies go out
 * within 3 s). A try costs one small request.
 */
export const TELEGRAM_BACKOFF = { initialDelayMs: 500, maxDelayMs: 2_000 } as const;

export interface RetryOptions {
  clock: Clock;
  signal: AbortSignal;
  outage: OutageLog;
  /** First wait; it doubles on each failure up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A failure retrying cannot fix: rethrown at once. */
  isFatal?(error: unknown): boolean;
  /** A wait the failure asks for itself (a flood wait), instead of the backoff. */
  delayOf?(error: unknown): number | undefined;
}

/**
 * Runs `attempt` until it succeeds, waiting on the clock between tries. Rethrows when the
 * signal aborts (also during a wait) or the failure is fatal; anything else is retried.
 */
export async function retryUntilDone<T>(
  attempt: () => Promise<T> | T,
  options: RetryOptions,
): Promise<T> {
  const { clock, signal, outage } = options;
  let backoff = options.initialDelayMs;
  for (;;) {
    try {
      const result = await attempt();
      outage.recovered();
      return result;
    } catch (error) {
      if (signal.aborted || options.isFatal?.(error)) throw error;
      const delay = options.delayOf?.(error) ?? backoff;
      outage.failed(error, delay);
      backoff = Math.min(backoff * 2, options.maxDelayMs);
      await sleep(clock, delay, signal);
    }
  }
}
