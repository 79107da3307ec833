import type { Logger } from './ports.ts';

/**
 * Runs work nobody awaits. A failure is logged under `event` and goes no further: an
 * unhandled rejection must never be able to end the process.
 */
export function background(log: Logger, event: string, work: Promise<unknown>): void {
  work.catch((error: unknown) =>
    log.error({ event, err: error }, `${event}: background work failed`),
  );
}

/**
 * Resolves on a task of its own (after the I/O and the tasks already queued): work that
 * waits for it lets the work queued before it run on first.
 */
export const nextTask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Resolves after the tasks already queued and the next round of I/O (a timer of 0): work
 * that only observes waits for it, so turns a getUpdates answer started, each on a task of
 * its own, all send their model requests first. Not the clock's: it is an order, not a time.
 */
export const afterQueuedTasks = (): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, 0));
