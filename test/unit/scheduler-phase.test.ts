/**
 * The scheduler's transitions as plain functions: each takes a phase and an event and
 * returns the next phase, or the same phase when the event does not apply to it.
 */
import { describe, expect, it } from 'vitest';
import {
  claimed,
  drained,
  isStarted,
  launched,
  MAX_WAIT_MS,
  roundDone,
  roundEnded,
  type SchedulerPhase,
  STALL_WAIT_MS,
  started,
  stopped,
  wakeIn,
} from '../../src/scheduler/phase.ts';
import type { DueJob } from '../../src/scheduler/types.ts';

const unsubscribe = () => {};
const done = Promise.resolve();
const job = { id: 'j1', dueAt: 5 } as DueJob;
const fresh: SchedulerPhase = { tag: 'new' };
const waiting: SchedulerPhase = { tag: 'waiting', stalled: false, unsubscribe };
const running: SchedulerPhase = { tag: 'running', since: 100, done, unsubscribe };
const over: SchedulerPhase = { tag: 'stopped' };

describe('scheduler transitions', () => {
  it('started: new → waiting, once', () => {
    expect(started(fresh, unsubscribe)).toEqual(waiting);
    for (const phase of [waiting, running, over]) expect(started(phase, unsubscribe)).toBe(phase);
    expect([fresh, waiting, running, over].map(isStarted)).toEqual([false, true, true, false]);
  });

  it('launched: waiting → running a round collected at `since`; a running round is not doubled', () => {
    expect(launched(waiting, { since: 100, done })).toEqual(running);
    for (const phase of [fresh, running, over])
      expect(launched(phase, { since: 200, done })).toBe(phase);
  });

  it('claimed and roundEnded: the running job, and when the next round was collected', () => {
    const withJob = claimed(running, job);
    expect(withJob).toMatchObject({ tag: 'running', job, since: 100 });
    expect(roundEnded(withJob, 300)).toMatchObject({ tag: 'running', since: 300 });
    for (const phase of [fresh, waiting, over]) {
      expect(claimed(phase, job)).toBe(phase);
      expect(roundEnded(phase, 300)).toBe(phase);
    }
  });

  it('drained: running → waiting, stalled when it started no run', () => {
    expect(drained(claimed(running, job), 1)).toEqual(waiting);
    expect(drained(running, 0)).toEqual({ ...waiting, stalled: true });
    expect(drained(over, 0)).toBe(over);
  });

  it('stopped: any phase → stopped, keeping a running round for stop and idle to wait for', () => {
    expect(stopped(fresh)).toEqual(over);
    expect(stopped(waiting)).toEqual(over);
    expect(stopped(running)).toEqual({ tag: 'stopped', done });
    expect(stopped(over)).toBe(over);
    expect([fresh, waiting, running, stopped(running)].map(roundDone)).toEqual([
      undefined,
      undefined,
      done,
      done,
    ]);
  });

  it('wakeIn: the time to the next due job, at most an hour, a second after a stalled round', () => {
    expect(wakeIn(waiting, 1_500, 1_000)).toBe(500);
    expect(wakeIn(waiting, 500, 1_000)).toBe(0);
    expect(wakeIn(waiting, undefined, 1_000)).toBe(MAX_WAIT_MS);
    expect(wakeIn(waiting, 1_000 + 2 * MAX_WAIT_MS, 1_000)).toBe(MAX_WAIT_MS);
    const stalled = drained(running, 0);
    expect(wakeIn(stalled, 1_000, 1_000)).toBe(STALL_WAIT_MS);
    expect(wakeIn(stalled, 5_000, 1_000)).toBe(4_000);
    expect(wakeIn(running, 1_000, 1_000)).toBe(0);
  });
});
