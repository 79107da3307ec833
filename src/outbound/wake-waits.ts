import type { Clock } from '../core/clock.ts';

/**
 * Backoff waits that can be ended early, all at once: the outbox's stalled chats wait here,
 * and `wakeAll` sends them on when the channel answers again. `signal` (shutdown) ends every
 * wait too.
 */
export function createWakeWaits(clock: Clock, signal: AbortSignal) {
  const wakers = new Set<() => void>();
  return {
    /** Waits `ms`, or until woken or `signal` aborts; resolves true when woken. Never rejects. */
    wait(ms: number): Promise<boolean> {
      return new Promise((resolve) => {
        const end = (woken: boolean) => {
          clock.clearTimeout(timer);
          wakers.delete(wake);
          signal.removeEventListener('abort', onAbort);
          resolve(woken);
        };
        const wake = () => end(true);
        const onAbort = () => end(false);
        const timer = clock.setTimeout(() => end(false), ms);
        if (signal.aborted) return end(false);
        wakers.add(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },

    /** Ends every wait now; returns how many there were. */
    wakeAll(): number {
      const waiting = [...wakers];
      for (const wake of waiting) wake();
      return waiting.length;
    },
  };
}
