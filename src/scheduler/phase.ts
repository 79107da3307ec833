import type { DueJob } from './types.ts';

/** The longest single wait: the scheduler wakes at least this often to re-sync. */
export const MAX_WAIT_MS = 60 * 60_000;
/** The wait before trying again after a round that could start nothing. */
export const STALL_WAIT_MS = 1_000;

/**
 * Where the scheduler is. `waiting`: started, no job running; `stalled` when the last
 * round could start none of its runs. `running`: a round of runs under way, collected at
 * `since` (ticks after it overlap), `job` the one running now, `done` when the round is
 * over. `stopped` keeps the round still finishing, for `stop` and `idle` to wait for.
 */
export type SchedulerPhase =
  | { tag: 'new' }
  | { tag: 'waiting'; stalled: boolean; unsubscribe: () => void }
  | {
      tag: 'running';
      since: number;
      job?: DueJob;
      done: Promise<void>;
      unsubscribe: () => void;
    }
  | { tag: 'stopped'; done?: Promise<void> };

export type StartedPhase = Extract<SchedulerPhase, { tag: 'waiting' | 'running' }>;

export const isStarted = (phase: SchedulerPhase): phase is StartedPhase =>
  phase.tag === 'waiting' || phase.tag === 'running';

/** new → waiting, listening to the job store (`unsubscribe` ends that). Only once. */
export function started(phase: SchedulerPhase, unsubscribe: () => void): SchedulerPhase {
  if (phase.tag !== 'new') return phase;
  return { tag: 'waiting', stalled: false, unsubscribe };
}

/** waiting → running: a round of runs collected at `since` begins; `done` when it is over. */
export function launched(
  phase: SchedulerPhase,
  round: { since: number; done: Promise<void> },
): SchedulerPhase {
  if (phase.tag !== 'waiting') return phase;
  return { tag: 'running', ...round, unsubscribe: phase.unsubscribe };
}

/** running: `job` is claimed and runs now (the one an overlapping tick names). */
export function claimed(phase: SchedulerPhase, job: DueJob): SchedulerPhase {
  if (phase.tag !== 'running') return phase;
  return { ...phase, job };
}

/** running: the round's runs are done and the next round is collected at `since`. */
export function roundEnded(phase: SchedulerPhase, since: number): SchedulerPhase {
  if (phase.tag !== 'running') return phase;
  return { ...phase, since };
}

/** running → waiting, stalled when the rounds started none of their runs. */
export function drained(phase: SchedulerPhase, startedRuns: number): SchedulerPhase {
  if (phase.tag !== 'running') return phase;
  return { tag: 'waiting', stalled: startedRuns === 0, unsubscribe: phase.unsubscribe };
}

/** Any phase → stopped, for good; a round under way finishes its running job. */
export function stopped(phase: SchedulerPhase): SchedulerPhase {
  if (phase.tag === 'stopped') return phase;
  return { tag: 'stopped', ...(phase.tag === 'running' ? { done: phase.done } : {}) };
}

/** What `idle` and `stop` wait for: the round under way, if any. */
export const roundDone = (phase: SchedulerPhase): Promise<void> | undefined =>
  phase.tag === 'running' || phase.tag === 'stopped' ? phase.done : undefined;

/**
 * How long to wait before waking, with `next` the earliest time a job is due (while a
 * round runs, the earliest after now: what is already due waits for the round). At most
 * MAX_WAIT_MS; at least STALL_WAIT_MS after a round that could start nothing, so a run
 * that cannot be claimed is not tried again in a loop.
 */
export function wakeIn(phase: SchedulerPhase, next: number | undefined, now: number): number {
  const wait = next === undefined ? MAX_WAIT_MS : Math.min(Math.max(0, next - now), MAX_WAIT_MS);
  return phase.tag === 'waiting' && phase.stalled ? Math.max(wait, STALL_WAIT_MS) : wait;
}
