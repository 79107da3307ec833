import type { Clock, TimerHandle } from '../core/clock.ts';
import { addressKey, type InboundEvent } from '../core/types.ts';

/** How long a batch may stay open in total, in windows. */
const MAX_WINDOWS = 4;

interface OpenBatch {
  events: InboundEvent[];
  deadline: number;
  timer: TimerHandle;
}

/**
 * Adaptive batching of texts. Texts of one conversation that arrive within `windowMs` of
 * each other are emitted together; each text restarts the window, but a batch never stays
 * open longer than 4 windows. Anything else first flushes the conversation's open batch, so
 * order is kept. `windowMs` 0 emits every event at once.
 */
export function createBatcher(options: {
  windowMs: number;
  clock: Clock;
  emit: (events: InboundEvent[]) => void;
}) {
  const { windowMs, clock, emit } = options;
  const open = new Map<string, OpenBatch>();

  const flush = (key: string) => {
    const batch = open.get(key);
    if (!batch) return;
    clock.clearTimeout(batch.timer);
    open.delete(key);
    emit(batch.events);
  };

  const arm = (key: string, batch: OpenBatch) => {
    clock.clearTimeout(batch.timer);
    const wait = Math.max(0, Math.min(windowMs, batch.deadline - clock.now()));
    batch.timer = clock.setTimeout(() => flush(key), wait);
  };

  return {
    push(event: InboundEvent): void {
      const key = addressKey(event.address);
      if (event.kind !== 'text' || windowMs === 0) {
        flush(key);
        emit([event]);
        return;
      }
      const batch = open.get(key);
      if (batch) {
        batch.events.push(event);
        arm(key, batch);
        return;
      }
      const fresh: OpenBatch = {
        events: [event],
        deadline: clock.now() + MAX_WINDOWS * windowMs,
        timer: clock.setTimeout(() => flush(key), windowMs),
      };
      open.set(key, fresh);
    },

    /** Takes a conversation's open batch away unsent (/stop drops it). */
    take(key: string): InboundEvent[] {
      const batch = open.get(key);
      if (!batch) return [];
      clock.clearTimeout(batch.timer);
      open.delete(key);
      return batch.events;
    },

    /** Drops every open batch (shutdown): their updates stay pending and are replayed. */
    close(): void {
      for (const batch of open.values()) clock.clearTimeout(batch.timer);
      open.clear();
    },
  };
}

export type Batcher = ReturnType<typeof createBatcher>;
