import type { Address, JobOutcome } from './types.ts';

/**
 * A turn finished and its answer is committed. `source` says what started it, named as the
 * dashboard's recent turns name it (`usage/aggregates.ts`): a job's turn is `schedule`, one
 * on the web chat's platform (`web`) is `web`, any other `chat`.
 */
export interface TurnCompleted {
  type: 'turn_completed';
  turnId: string;
  address: Address;
  pack: string;
  sessionId: string;
  source: 'chat' | 'schedule' | 'web';
  modelCalls: number;
  timedOut: boolean;
  ms: number;
}

/** A scheduled job ran (whatever came of it). */
export interface JobRan {
  type: 'job_run';
  jobId: string;
  pack: string;
  outcome: string;
  ms: number;
}

/** A job's turn starts: from now on a crash interrupts a started run. */
export interface JobStarted {
  type: 'job_started';
  jobId: string;
  dueAt: number;
}

/** The pipeline is done with a job's run: its reply (if any) and acknowledgement committed. */
export interface JobFinished {
  type: 'job_finished';
  jobId: string;
  dueAt: number;
  outcome: JobOutcome;
}

/** A conversation was bound to a pack (its manifest jobs are due to be made). */
export interface ConversationBound {
  type: 'conversation_bound';
  address: Address;
  pack: string;
}

export type PipelineEvent = TurnCompleted | JobRan | JobStarted | JobFinished | ConversationBound;
type Listener<E> = (event: E) => void;

/**
 * The events other parts subscribe to (the log, the dashboard's recent turns, a pack's
 * journaling). A listener that throws is reported to `onError`, never to the emitter: the
 * turn that emitted has already committed.
 */
export function createEventBus(onError: (error: unknown, event: PipelineEvent) => void) {
  const listeners = new Map<PipelineEvent['type'], Set<Listener<never>>>();
  return {
    on<T extends PipelineEvent['type']>(
      type: T,
      listener: Listener<Extract<PipelineEvent, { type: T }>>,
    ): () => void {
      const set = listeners.get(type) ?? new Set();
      set.add(listener as Listener<never>);
      listeners.set(type, set);
      return () => set.delete(listener as Listener<never>);
    },

    emit(event: PipelineEvent): void {
      for (const listener of listeners.get(event.type) ?? []) {
        try {
          (listener as Listener<PipelineEvent>)(event);
        } catch (error) {
          onError(error, event);
        }
      }
    },
  };
}

export type EventBus = ReturnType<typeof createEventBus>;
