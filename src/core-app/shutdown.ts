import { type Clock, sleep } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { DEFAULT_CLOSE_GRACE_MS, stopBoundMs } from '../mcp/connection.ts';
import type { McpHub } from '../mcp/types.ts';

/** How long running turns may take to finish on shutdown. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** After the grace, how long aborted turns and calls already on the wire may take to end. */
const SETTLE_AFTER_ABORT_MS = 500;
/**
 * How long the MCP servers may take to stop when the grace is used up: the default hub's
 * grace and its wait after SIGKILL, so a server that ignores SIGTERM is still killed.
 */
export const MCP_CLOSE_MS = stopBoundMs(DEFAULT_CLOSE_GRACE_MS);

/** What shutdown stops, in its order. */
export interface ShutdownParts {
  clock: Clock;
  log: Logger;
  graceMs: number | undefined;
  /** Every edge's ingress (ingresses.stop). */
  edges: { stop(): Promise<void> };
  scheduler: { stop(): Promise<void> };
  pipeline: { close(): void; idle(): Promise<void>; abortAll(): void };
  outbox: { idle(): Promise<void>; close(): void };
  mcpHub: Pick<McpHub, 'close'>;
  packs: { close(): void };
  store: { close(): void };
}

/**
 * The shutdown: the intake stops first (`stopIntake`: the dashboard, the terminal's lines;
 * then every edge's ingress), then running turns finish and outboxes flush for at most 10 s
 * together, then the databases close. What did not finish stays pending for the next start.
 */
export function buildShutdown(parts: ShutdownParts) {
  const { clock, log, scheduler, pipeline, outbox } = parts;
  return async (stopIntake: () => Promise<void> = async () => {}): Promise<void> => {
    log.info({ event: 'satchel_stopping' }, 'stopping');
    const deadline = clock.now() + (parts.graceMs ?? SHUTDOWN_GRACE_MS);
    // The waits end with the shutdown, so no timer outlives it (the chat exits by itself).
    const over = new AbortController();
    const timeUp = (ms: number) =>
      sleep(clock, Math.max(0, ms), over.signal).then(
        () => false,
        () => false,
      );
    const within = (work: Promise<unknown>, ms = deadline - clock.now()) =>
      Promise.race([work.then(() => true), timeUp(ms)]);
    await within(stopIntake().then(() => parts.edges.stop()));
    const schedulerStopped = scheduler.stop();
    pipeline.close();
    const done =
      (await within(pipeline.idle())) &&
      (await within(schedulerStopped)) &&
      (await within(outbox.idle()));
    if (!done) {
      pipeline.abortAll();
      outbox.close();
      // Aborted work ends at once; a call already on the wire gets a moment to land.
      const settling = Promise.all([pipeline.idle(), schedulerStopped, outbox.idle()]);
      await within(settling, SETTLE_AFTER_ABORT_MS);
    }
    // The servers stop after the turns that use them; their processes get a bounded wait.
    await within(parts.mcpHub.close(), Math.max(deadline - clock.now(), MCP_CLOSE_MS));
    over.abort();
    outbox.close();
    parts.packs.close();
    parts.store.close();
    log.info({ event: 'satchel_stopped', clean: done }, 'stopped');
  };
}
