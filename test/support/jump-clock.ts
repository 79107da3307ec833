import type { Clock, TimerHandle } from '../../src/core/clock.ts';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
  real: ReturnType<typeof setTimeout>;
}

/**
 * A clock for end-to-end tests that runs in real time — the fake servers and the HTTP in
 * between keep working — and that a test can move forward: `advance(ms)` jumps its time,
 * and every timer that falls due on the way fires at once, in order. So "a day later" or
 * "after the one-second throttle" takes no waiting.
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
    const at = this.now() + Math.max(0, ms);
    this.timers.set(id, { id, at, fn, real: this.arm(id, ms) });
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
    this.offset += ms;
    const due = [...this.timers.values()]
      .filter((t) => t.at <= this.now())
      .sort((a, b) => a.at - b.at || a.id - b.id);
    for (const timer of due) {
      clearTimeout(timer.real);
      this.timers.delete(timer.id);
    }
    for (const timer of due) timer.fn();
    for (const timer of this.timers.values()) {
      clearTimeout(timer.real);
      timer.real = this.arm(timer.id, timer.at - this.now());
    }
  }

  private arm(id: number, ms: number): ReturnType<typeof setTimeout> {
    const real = setTimeout(
      () => {
        const timer = this.timers.get(id);
        if (!timer) return;
        this.timers.delete(id);
        timer.fn();
      },
      Math.max(0, ms),
    );
    // A timer of a stopped app (the scheduler's hourly wake) must not keep a test alive.
    real.unref();
    return real;
  }
}
