import type { Clock } from '../core/clock.ts';
import { untilAborted } from './abortable.ts';

/**
 * The bound of one step with a server (a start, a re-list): its signal aborts with
 * `expired()` once `ms` have passed on `clock`, or with any reason given to `abort` (a
 * close, a flood). `clear` stops the timer once the step is over, however it ended.
 */
export function startDeadline(clock: Clock, ms: number, expired: () => Error) {
  const controller = new AbortController();
  const timer = clock.setTimeout(() => controller.abort(expired()), ms);
  const { signal } = controller;
  return {
    signal,
    abort: (reason: unknown) => controller.abort(reason),
    clear: () => clock.clearTimeout(timer),
    /** `work`, or a rejection with the abort's reason as soon as the deadline aborts. */
    bound: <T>(work: Promise<T>) => untilAborted(work, signal),
    /** Why the step failed: the abort's reason when it was aborted, else its own error. */
    cause: (error: unknown): unknown => (signal.aborted ? signal.reason : error),
  };
}

export type Deadline = ReturnType<typeof startDeadline>;
