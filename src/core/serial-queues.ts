interface Lane {
  /** Settles when the lane's last task has finished. */
  tail: Promise<unknown>;
  /** Tasks added and not yet finished (waiting or running). */
  load: number;
}

/**
 * One first-in-first-out lane per key: tasks of a key run one after another, different keys
 * at the same time. A lane is forgotten when its last task finishes, so a bot that has seen
 * many chats holds memory only for the busy ones.
 */
export function createSerialQueues<K>() {
  const lanes = new Map<K, Lane>();

  return {
    add<T>(key: K, task: () => Promise<T>): Promise<T> {
      let lane = lanes.get(key);
      if (!lane) {
        lane = { tail: Promise.resolve(), load: 0 };
        lanes.set(key, lane);
      }
      const own = lane;
      own.load += 1;
      const run = own.load === 1 ? start(task) : own.tail.then(task);
      own.tail = run.then(
        () => undefined,
        () => undefined,
      );
      return run.finally(() => {
        own.load -= 1;
        if (own.load === 0 && lanes.get(key) === own) lanes.delete(key);
      });
    },

    /** Tasks of a key waiting behind the running one. */
    waiting(key: K): number {
      return Math.max(0, (lanes.get(key)?.load ?? 0) - 1);
    },

    /** Whether a key has a task running or waiting. */
    busy(key: K): boolean {
      return lanes.has(key);
    },

    /** Keys with work in hand. */
    get size(): number {
      return lanes.size;
    },

    /** Resolves when every lane has run dry. */
    async idle(): Promise<void> {
      while (lanes.size > 0) await Promise.all([...lanes.values()].map((l) => l.tail));
    },
  };
}

/** Runs `task` now; a synchronous throw becomes a rejection, as from an async function. */
async function start<T>(task: () => Promise<T>): Promise<T> {
  return task();
}
