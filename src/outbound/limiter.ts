import type { Clock, TimerHandle } from '../core/clock.ts';
import { AbortedError } from '../core/errors.ts';

/**
 * Who is asking for a slot. `message`: replies and everything that must arrive (durable
 * rows, live edits, callback answers). `side`: typing and drafts, which yield to messages.
 * `stranger`: "not authorized" replies, which have a small budget of their own.
 */
export type Priority = 'message' | 'side' | 'stranger';

export interface LimiterOptions {
  clock: Clock;
  /** Calls allowed in any one window, all priorities together. */
  perWindow?: number;
  windowMs?: number;
  /** Stranger calls allowed in any one window. */
  strangerPerWindow?: number;
  /** Slots strangers may never take: they are kept for allowed users. */
  reservedForUsers?: number;
  /**
   * Slots typing and drafts may never take: they are kept for messages, so a reply never
   * waits for a window that chat actions filled (default: 2 in 5 of the window).
   */
  reservedForMessages?: number;
}

/** Ends a granted call: its slot counts in the window from the moment the call ended. */
export type Release = () => void;

interface Waiter {
  priority: Priority;
  grant(release: Release): void;
  signal?: AbortSignal | undefined;
  onAbort?: () => void;
}

const ORDER: readonly Priority[] = ['message', 'side', 'stranger'];

/**
 * The global rate limiter: at most `perWindow` calls in any sliding window, with no spacing
 * inside that budget (a quiet bot adds no wait, and a burst goes out at once). A call holds
 * its slot while it runs and for one window after it ended, so however long a request takes
 * to reach the platform, no window there sees more than `perWindow` calls. When the
 * budget is spent, waiting calls are granted in priority order, first come first served
 * within a priority. Strangers have their own small budget and can never use the slots
 * reserved for allowed users, so a crowd of them never delays an allowed user's reply;
 * typing and drafts never use the slots kept for messages, so neither do they.
 */
export function createLimiter(options: LimiterOptions) {
  const { clock } = options;
  const perWindow = options.perWindow ?? 25;
  const windowMs = options.windowMs ?? 1000;
  const strangerPerWindow = options.strangerPerWindow ?? 5;
  const reserved = options.reservedForUsers ?? 10;
  const keptForMessages = options.reservedForMessages ?? Math.floor((perWindow * 2) / 5);
  /** End times of calls inside the window, oldest first; `strangers` holds their part. */
  const stamps: number[] = [];
  const strangers: number[] = [];
  /** Granted calls not ended yet. */
  const running = { all: 0, strangers: 0 };
  const waiting = new Map<Priority, Waiter[]>(ORDER.map((p) => [p, []]));
  let timer: TimerHandle | undefined;

  const expire = (list: number[], now: number) => {
    while (list.length > 0 && list[0]! <= now - windowMs) list.shift();
  };

  const canGrant = (priority: Priority): boolean => {
    const used = stamps.length + running.all;
    if (used >= perWindow) return false;
    if (priority === 'message') return true;
    if (priority === 'side') return used < perWindow - keptForMessages;
    return used < perWindow - reserved && strangers.length + running.strangers < strangerPerWindow;
  };

  /** Counts a call as running; its release moves it into the window. */
  const take = (priority: Priority): Release => {
    const stranger = priority === 'stranger';
    running.all++;
    if (stranger) running.strangers++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = clock.now();
      running.all--;
      stamps.push(now);
      if (stranger) {
        running.strangers--;
        strangers.push(now);
      }
      pump();
    };
  };

  /** Grants every waiter the budget allows now; arms a timer for the rest. */
  function pump(): void {
    const now = clock.now();
    expire(stamps, now);
    expire(strangers, now);
    for (const priority of ORDER) {
      const queue = waiting.get(priority)!;
      while (queue.length > 0 && canGrant(priority)) {
        const waiter = queue.shift()!;
        waiter.signal?.removeEventListener('abort', waiter.onAbort!);
        waiter.grant(take(priority));
      }
    }
    arm();
  }

  function arm(): void {
    if (timer !== undefined) return;
    if (ORDER.every((p) => waiting.get(p)!.length === 0)) return;
    // Nothing ended yet: a release will pump.
    const oldest = Math.min(stamps[0] ?? Number.POSITIVE_INFINITY, strangers[0] ?? Infinity);
    if (!Number.isFinite(oldest)) return;
    const wait = Math.max(0, oldest + windowMs - clock.now());
    timer = clock.setTimeout(() => {
      timer = undefined;
      pump();
    }, wait);
  }

  return {
    /**
     * Resolves when the caller may make one call, with the function to call when it ended.
     * Rejects when `signal` aborts first.
     */
    acquire(priority: Priority, signal?: AbortSignal): Promise<Release> {
      if (signal?.aborted) return Promise.reject(signal.reason ?? new AbortedError());
      const now = clock.now();
      expire(stamps, now);
      expire(strangers, now);
      const ahead = ORDER.slice(0, ORDER.indexOf(priority) + 1).some(
        (p) => waiting.get(p)!.length > 0,
      );
      if (!ahead && canGrant(priority)) return Promise.resolve(take(priority));
      return new Promise((resolve, reject) => {
        const queue = waiting.get(priority)!;
        const waiter: Waiter = { priority, grant: resolve, signal };
        waiter.onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(signal?.reason ?? new AbortedError());
        };
        signal?.addEventListener('abort', waiter.onAbort, { once: true });
        queue.push(waiter);
        arm();
      });
    },

    /** Calls running or ended inside the current window (for tests and the benchmark). */
    inWindow(): number {
      expire(stamps, clock.now());
      return stamps.length + running.all;
    },
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
