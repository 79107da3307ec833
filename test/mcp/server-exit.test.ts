/**
 * The `mcp_server_exited` line names the reason of that exit, even when a later start has
 * failed (and changed the runner's reason) before the exit's last stderr lines were in.
 * The connection is a fake here: only it lets the test hold the stderr wait open.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ConnectionHooks, McpConnection } from '../../src/mcp/connection.ts';
import { DEFAULT_FLOOD_LIMITS } from '../../src/mcp/flood-meter.ts';
import { createServerRunner } from '../../src/mcp/server.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { fixtureServer, recordingLog } from './support.ts';

interface Fake {
  hooks: ConnectionHooks;
  drainStderr: () => void;
}
const made: Fake[] = [];
/** Each connection made: the first connects and lists, the next ones fail to connect. */
vi.mock('../../src/mcp/connection.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/mcp/connection.ts')>()),
  createConnection: (_config: unknown, hooks: ConnectionHooks): McpConnection => {
    let drainStderr = () => {};
    const drained = new Promise<void>((resolve) => {
      drainStderr = resolve;
    });
    const first = made.length === 0;
    made.push({ hooks, drainStderr });
    return {
      client: { request: async () => ({ tools: [] }) },
      pid: () => undefined,
      stderr: undefined,
      closed: new Promise(() => {}),
      isClosed: () => false,
      isStopping: () => false,
      lastError: () => undefined,
      stderrDrained: () => drained,
      connect: async () => {
        if (!first) throw new Error('no such command');
      },
      stop: async () => {},
    } as unknown as McpConnection;
  },
}));

describe('an MCP server that exits', () => {
  it('logs the reason of its exit, not that of a start that failed meanwhile', async () => {
    const { log, events } = recordingLog();
    const guard = { track() {}, untrack() {}, close() {} };
    const runner = createServerRunner(fixtureServer(), {
      log,
      redact: (text: string) => text,
      clock: new FakeClock(),
      parentEnv: {},
      guard,
      closeGraceMs: 1000,
      flood: DEFAULT_FLOOD_LIMITS,
    });
    expect(await runner.ensure()).toMatchObject({ ok: true });

    made[0]!.hooks.onClose();
    // A first crash restarts at once; this start fails while the exit's stderr is awaited.
    expect(await runner.ensure()).toMatchObject({
      ok: false,
      reason: 'it could not be started: no such command',
    });
    made[0]!.drainStderr();
    await vi.waitFor(() => expect(events('mcp_server_exited')).toHaveLength(1));

    expect(events('mcp_server_exited')[0]).toMatchObject({ reason: 'the server exited' });
  });
});
