import { describe, expect, it } from 'vitest';
import {
  deadlineNote,
  describeDuration,
  startDeadline,
  TurnDeadlineError,
} from '../../src/agent/deadline.ts';
import { defaultRetryPolicy, MAX_RETRY_AFTER_MS } from '../../src/agent/retry.ts';
import { StopRequested } from '../../src/core/errors.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('the default retry policy', () => {
  it('backs off 0.5 s then 1 s when the provider names no wait', () => {
    expect(defaultRetryPolicy.retries).toBe(2);
    expect([0, 1].map((retry) => defaultRetryPolicy.delayMs(retry, undefined))).toEqual([
      500, 1000,
    ]);
  });

  it('waits what the provider asks, but gives up on a wait above the cap', () => {
    expect(defaultRetryPolicy.delayMs(0, 7000)).toBe(7000);
    expect(defaultRetryPolicy.delayMs(1, MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
    expect(defaultRetryPolicy.delayMs(0, MAX_RETRY_AFTER_MS + 1)).toBeUndefined();
  });
});

describe('the turn deadline', () => {
  it('aborts on the injected clock with a TurnDeadlineError', () => {
    const clock = new FakeClock();
    const deadline = startDeadline(clock, 1000, new AbortController().signal);
    clock.advance(999);
    expect(deadline.signal.aborted).toBe(false);
    clock.advance(1);
    expect(deadline.signal.reason).toBeInstanceOf(TurnDeadlineError);
    expect(deadline.expired()).toBe(true);
  });

  it('passes /stop through as /stop, and does not fire once disposed', () => {
    const clock = new FakeClock();
    const parent = new AbortController();
    const stopped = startDeadline(clock, 1000, parent.signal);
    parent.abort(new StopRequested());
    expect(stopped.signal.reason).toBeInstanceOf(StopRequested);
    expect(stopped.expired()).toBe(false);

    const done = startDeadline(clock, 1000, new AbortController().signal);
    done.dispose();
    clock.advance(5000);
    expect(done.signal.aborted).toBe(false);
  });

  it('says how long the turn may take in words', () => {
    expect(describeDuration(300_000)).toBe('5 minutes');
    expect(describeDuration(60_000)).toBe('1 minute');
    expect(describeDuration(90_000)).toBe('90 seconds');
    expect(describeDuration(1000)).toBe('1 second');
    expect(deadlineNote(300_000)).toBe('(I stopped here: the answer took longer than 5 minutes.)');
    expect(new TurnDeadlineError(300_000).userMessage).toBe(
      'That took longer than 5 minutes, so I stopped.',
    );
  });
});
