import PQueue from 'p-queue';

export type TurnJob = (signal: AbortSignal) => Promise<void>;

interface Actor {
  queue: PQueue;
  running: AbortController | undefined;
}

/**
 * One actor per conversation: its turns run one after another, different conversations at
 * the same time. At most `maxWaiting` turns wait behind the running one; `submit` answers
 * 'busy' beyond that and the caller tells the user.
 */
export function createActors(options: { maxWaiting: number }) {
  const actors = new Map<string, Actor>();

  const actorFor = (key: string): Actor => {
    let actor = actors.get(key);
    if (!actor) {
      actor = { queue: new PQueue({ concurrency: 1 }), running: undefined };
      actors.set(key, actor);
    }
    return actor;
  };

  return {
    submit(key: string, job: TurnJob): 'queued' | 'busy' {
      const actor = actorFor(key);
      if (actor.queue.size >= options.maxWaiting) return 'busy';
      void actor.queue.add(async () => {
        const controller = new AbortController();
        actor.running = controller;
        try {
          await job(controller.signal);
        } finally {
          actor.running = undefined;
          if (actor.queue.size === 0 && actor.queue.pending <= 1)
            queueMicrotask(() => forgetIfIdle(key));
        }
      });
      return 'queued';
    },

    /** Aborts the running turn of a conversation; queued turns still run. */
    abortRunning(key: string, reason: unknown): boolean {
      const running = actors.get(key)?.running;
      if (!running) return false;
      running.abort(reason);
      return true;
    },

    /** Aborts every running turn (shutdown after the grace period). */
    abortAll(reason: unknown): void {
      for (const actor of actors.values()) actor.running?.abort(reason);
    },

    waiting(key: string): number {
      return actors.get(key)?.queue.size ?? 0;
    },

    async idle(): Promise<void> {
      await Promise.all([...actors.values()].map((a) => a.queue.onIdle()));
    },
  };

  function forgetIfIdle(key: string): void {
    const actor = actors.get(key);
    if (actor && actor.queue.size === 0 && actor.queue.pending === 0) actors.delete(key);
  }
}

export type Actors = ReturnType<typeof createActors>;
