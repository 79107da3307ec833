import type { Clock, TimerHandle } from '../core/clock.ts';
import { SatchelError } from '../core/errors.ts';

/** A turn may take this long by default (TURN_TIMEOUT_MS), model calls and tools together. */
export const DEFAULT_TURN_TIMEOUT_MS = 300_000;

/**
 * The turn ran out of time. It is the abort reason of the turn's deadline signal; the agent
 * turns it into the answer so far plus a note, so it reaches the user only from /compact.
 */
export class TurnDeadlineError extends SatchelError {
  readonly ms: number;

  constructor(ms: number) {
    super('turn_deadline', `the turn took longer than ${ms} ms`, {
      userMessage: `That took longer than ${describeDuration(ms)}, so I stopped.`,
    });
    this.ms = ms;
  }
}

/**
 * A signal that aborts when `parent` does (with its reason: /stop stays /stop) or when `ms`
 * have passed on `clock` (with a TurnDeadlineError). `dispose` stops the timer.
 */
export function startDeadline(clock: Clock, ms: number, parent: AbortSignal) {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  if (parent.aborted) onParentAbort();
  let left = ms;
  let startedAt = clock.now();
  const arm = () => clock.setTimeout(() => controller.abort(new TurnDeadlineError(ms)), left);
  let timer: TimerHandle | undefined = arm();
  return {
    signal: controller.signal,
    /** The deadline, not the caller, ended the turn. */
    expired: () => controller.signal.reason instanceof TurnDeadlineError && !parent.aborted,
    /**
     * Stops the clock while the turn waits for the user (an `ask_user` question has its own
     * 10-minute limit): a person taking their time is not a stuck turn.
     */
    async whilePaused<T>(work: () => Promise<T>): Promise<T> {
      if (timer === undefined) return work();
      clock.clearTimeout(timer);
      timer = undefined;
      left = Math.max(0, left - (clock.now() - startedAt));
      try {
        return await work();
      } finally {
        startedAt = clock.now();
        if (!controller.signal.aborted) timer = arm();
      }
    },
    dispose() {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}

export type Deadline = ReturnType<typeof startDeadline>;

/** What ends an answer cut short by the deadline. */
export function deadlineNote(ms: number): string {
  return `(I stopped here: the answer took longer than ${describeDuration(ms)}.)`;
}

/** 300000 → "5 minutes", 90000 → "90 seconds", 1000 → "1 second". */
export function describeDuration(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms >= 60_000 && ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  if (ms >= 1000) return plural(Math.round(ms / 1000), 'second');
  return `${ms} ms`;
}
