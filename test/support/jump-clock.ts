import type { Clock, TimerHandle } from '../../src/core/clock.ts';

/** The longest delay `setTimeout` takes; Node turns a longer one into 1 ms. */
const MAX_REAL_DELAY_MS = 2 ** 31 - 1;

interface Timer {
  id: number;
  /** What the caller asked for. */
  ms: number;
  /** When it is due, on this clock. */
  at: number;
  fn: () => void;
  real: ReturnType<typeof setTimeout>;
}

/** A timer still to fire: the delay it was set with and when it is due, on the clock. */
export interface PendingTimer {
  ms: number;
  at: number;
}

/**
 * A clock for end-to-end tests that runs in real time — the fake servers and the HTTP in
 * between keep working — and that a test can move forward: `advance(ms)` jumps its time,
 * and every timer that falls due on the way fires at once, in order. So "a day later" or
 * "after the one-second throttle" takes no waiting.
 *
 * Contracts: a timer never fires before `now()` reads its due time, and a cleared timer
 * never fires (not even one cleared by another timer of the same advance).
 */
export class JumpClock implements Clock {
  private offset = 0;
  private timers = new Map<number, Timer>();
  private nextId = 1;

  constructor(start?: number) {
    if (start !== undefined) this.offset = start - Date.now();
  }

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const delay = Math.max(0, ms);
    this.timers.set(id, { id, ms: delay, at: this.now() + delay, fn, real: this.arm(id, delay) });
    return id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = this.timers.get(handle as unknown as number);
    if (!timer) return;
    clearTimeout(timer.real);
    this.timers.delete(timer.id);
  }

  /** Moves time forward by `ms`; timers due by then fire now, the rest keep their time. */
  advance(ms: number): void {
    this.offset += Math.max(0, ms);
    const due = [...this.timers.values()]
      .filter((t) => t.at <= this.now())
      .sort((a, b) => a.at - b.at || a.id - b.id);
    try {
      for (const timer of due) {
        // An earlier callback may have cleared it.
        if (this.timers.get(timer.id) !== timer) continue;
        this.fire(timer);
      }
    } finally {
      for (const timer of this.timers.values()) {
        clearTimeout(timer.real);
        timer.real = this.arm(timer.id, timer.at - this.now());
      }
    }
  }

  /**
   * Runs `wait` while skipping the app's short waits: every 10 ms, a timer due within
   * `withinMs` fires at once (time jumps to it), one due later keeps its time. For a wait
   * that is not what a test checks (a retry's backoff, a rate limit's window), so the test
   * does not spend it in real time; pick `withinMs` below the app's longer timers.
   */
  async skipWaits<T>(withinMs: number, wait: () => Promise<T>): Promise<T> {
    const jump = setInterval(() => {
      const next = this.pendingTimers()[0];
      const left = next ? next.at - this.now() : Number.POSITIVE_INFINITY;
      if (left <= withinMs) this.advance(Math.max(0, left));
    }, 10);
    try {
      return await wait();
    } finally {
      clearInterval(jump);
    }
  }

  /** The timers still to fire, soonest first (what the app is waiting for). */
  pendingTimers(): PendingTimer[] {
    return [...this.timers.values()]
      .sort((a, b) => a.at - b.at || a.id - b.id)
      .map(({ ms, at }) => ({ ms, at }));
  }

  private fire(timer: Timer): void {
    clearTimeout(timer.real);
    this.timers.delete(timer.id);
    timer.fn();
  }

  private arm(id: number, ms: number): ReturnType<typeof setTimeout> {
    const real = setTimeout(
      () => {
        const timer = this.timers.get(id);
        if (!timer) return;
        // Node may run a timer a millisecond before Date.now() gets there, and a delay past
        // setTimeout's limit was capped: not due yet, so wait again.
        const left = timer.at - this.now();
        if (left > 0) timer.real = this.arm(id, left);
        else this.fire(timer);
      },
      Math.min(Math.max(0, ms), MAX_REAL_DELAY_MS),
    );
    // A timer of a stopped app (the scheduler's hourly wake) must not keep a test alive.
    real.unref();
    return real;
  }
}
