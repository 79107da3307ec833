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
