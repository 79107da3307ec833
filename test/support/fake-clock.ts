import type { Clock, TimerHandle } from '../../src/core/clock.ts';

interface Timer {
  at: number;
  fn: () => void;
  id: number;
}

/** A clock that only moves when told to; timers fire in time order as it advances. */
export class FakeClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(start = Date.UTC(2026, 10, 22, 12, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.current + Math.max(0, ms), fn, id: this.nextId++ };
    this.timers.push(timer);
    return timer.id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== (handle as unknown as number));
  }

  /** Moves time forward, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = due.at;
      due.fn();
    }
    this.current = end;
  }

  pending(): number {
    return this.timers.length;
  }

  /** When each pending timer is due, soonest first. */
  dueTimes(): number[] {
    return this.timers.map((t) => t.at).sort((a, b) => a - b);
  }
}
