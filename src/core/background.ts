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
