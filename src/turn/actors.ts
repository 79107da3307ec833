import { createSerialQueues } from '../core/serial-queues.ts';

export type TurnJob = (signal: AbortSignal) => Promise<void>;

/**
 * One actor per conversation: its turns run one after another, different conversations at
 * the same time. At most `maxWaiting` turns wait behind the running one; `submit` answers
 * 'busy' beyond that and the caller tells the user. Once closed (shutdown), turns that have
 * not started are skipped: their updates stay pending and are replayed on the next start.
 */
export function createActors(options: { maxWaiting: number }) {
  const lanes = createSerialQueues<string>();
  const running = new Map<string, AbortController>();
  let closed = false;

  return {
    submit(key: string, job: TurnJob): 'queued' | 'busy' {
      if (lanes.waiting(key) >= options.maxWaiting) return 'busy';
      void this.run(key, job);
      return 'queued';
    },

    /**
     * Runs `job` in the conversation's lane whatever its queue holds (a scheduled run is
     * not refused as busy); resolves with its result, or undefined when closed first.
     * `job` must not reject.
     */
    run<T>(key: string, job: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
      return lanes.add(key, async () => {
        if (closed) return undefined;
        const controller = new AbortController();
        running.set(key, controller);
        try {
          return await job(controller.signal);
        } finally {
          running.delete(key);
        }
      });
    },

    /** Aborts the running turn of a conversation; queued turns still run. */
    abortRunning(key: string, reason: unknown): boolean {
      const controller = running.get(key);
      if (!controller) return false;
      controller.abort(reason);
      return true;
    },

    /** No turn starts from now on; running ones go on until they finish or are aborted. */
    close(): void {
      closed = true;
    },

    /** Aborts every running turn (shutdown after the grace period). */
    abortAll(reason: unknown): void {
      for (const controller of running.values()) controller.abort(reason);
    },

    waiting: (key: string): number => lanes.waiting(key),

    /** Conversations with a turn running or waiting. */
    get active(): number {
      return lanes.size;
    },

    idle: (): Promise<void> => lanes.idle(),
  };
}

export type Actors = ReturnType<typeof createActors>;
