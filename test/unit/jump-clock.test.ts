import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JumpClock } from '../support/jump-clock.ts';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);

// Real time is vitest's fake timers here, so "real time passes" is exact.
beforeEach(() => {
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('JumpClock', () => {
  it('runs in real time: now() and timers follow the wall clock', () => {
    const clock = new JumpClock();
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 500);
    expect(clock.now()).toBe(START);

    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([START + 500]);
  });

  it('starts at the time it is given and keeps running from there', () => {
    const clock = new JumpClock(Date.UTC(2030, 0, 1));
    vi.advanceTimersByTime(250);
    expect(clock.now()).toBe(Date.UTC(2030, 0, 1) + 250);
  });

  it('jumps forward, firing the timers due on the way at once and in order', () => {
    const clock = new JumpClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 2000);
    clock.setTimeout(() => fired.push('a'), 1000);
    clock.setTimeout(() => fired.push('a2'), 1000);
    clock.setTimeout(() => fired.push('later'), 5000);

    clock.advance(3000);
    expect(fired).toEqual(['a', 'a2', 'b']);
    expect(clock.now()).toBe(START + 3000);
    expect(clock.pendingTimers()).toEqual([{ ms: 5000, at: START + 5000 }]);

    // The rest keep their time on the clock: 2 s of real time to go, not 5 s.
    vi.advanceTimersByTime(1999);
    expect(fired).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a', 'a2', 'b', 'later']);
    expect(clock.pendingTimers()).toEqual([]);
  });

  it('never fires a cleared timer, even one cleared by another timer of the same jump', () => {
    const clock = new JumpClock();
    const fired: string[] = [];
    clock.setTimeout(() => {
      fired.push('first');
      clock.clearTimeout(second);
    }, 100);
    const second = clock.setTimeout(() => fired.push('second'), 200);
    const third = clock.setTimeout(() => fired.push('third'), 300);
    clock.clearTimeout(third);

    clock.advance(1000);
    vi.advanceTimersByTime(10_000);
    expect(fired).toEqual(['first']);
  });

  it('arms a timer set during a jump from the new time', () => {
    const clock = new JumpClock();
    const fired: number[] = [];
    clock.setTimeout(() => clock.setTimeout(() => fired.push(clock.now()), 4000), 1000);

    clock.advance(9000);
    expect(fired).toEqual([]);
    expect(clock.pendingTimers()).toEqual([{ ms: 4000, at: START + 13_000 }]);
    vi.advanceTimersByTime(4000);
    expect(fired).toEqual([START + 13_000]);
  });

  it('does not fire a timer longer than setTimeout can wait early', () => {
    const clock = new JumpClock();
    const fired: string[] = [];
    const month = 31 * 24 * 3_600_000; // past setTimeout's limit of about 24.8 days
    clock.setTimeout(() => fired.push('month'), month);

    vi.advanceTimersByTime(25 * 24 * 3_600_000);
    expect(fired).toEqual([]);
    clock.advance(6 * 24 * 3_600_000);
    expect(fired).toEqual(['month']);
  });

  it('lists what is pending: the delay each timer asked for and when it is due', () => {
    const clock = new JumpClock();
    clock.setTimeout(() => undefined, 4000);
    clock.setTimeout(() => undefined, 1000);
    vi.advanceTimersByTime(300);
    expect(clock.pendingTimers()).toEqual([
      { ms: 1000, at: START + 1000 },
      { ms: 4000, at: START + 4000 },
    ]);
  });

  it('skips the short waits while a wait runs: due within the bound, at once, in order; the rest keep their time', async () => {
    const clock = new JumpClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('backoff 500'), 500);
    clock.setTimeout(() => {
      fired.push('backoff 1000');
      clock.setTimeout(() => fired.push('backoff 2000 after it'), 2000);
    }, 1000);
    clock.setTimeout(() => fired.push('hourly'), 3_600_000);
    const done = clock.skipWaits(2000, async () => {
      await vi.advanceTimersByTimeAsync(50); // 50 ms of real time: a few of its checks
      return 'waited';
    });
    expect(await done).toBe('waited');
    expect(fired).toEqual(['backoff 500', 'backoff 1000', 'backoff 2000 after it']);
    expect(clock.pendingTimers()).toEqual([{ ms: 3_600_000, at: START + 3_600_000 }]);

    // Once the wait is over, nothing is skipped any more.
    clock.setTimeout(() => fired.push('later'), 100);
    await vi.advanceTimersByTimeAsync(50);
    expect(fired).not.toContain('later');
  });
});
