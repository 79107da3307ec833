/**
 * The `mcp_server_exited` line names the reason of that exit, even when a later start has
 * failed (and changed the runner's reason) before the exit's last stderr lines were in.
 * The connection is a fake here: only it lets the test hold the stderr wait open.
 */
import { describe, expect, it, vi } from 'vitest';
import { createServerRunner } from '../../src/mcp/server.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { fakes } from './fake-connection.ts';
import { fixtureServer, recordingLog, runnerDeps } from './support.ts';

vi.mock('../../src/mcp/connection.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/mcp/connection.ts')>()),
  createConnection: (await import('./fake-connection.ts')).createFakeConnection,
}));

describe('an MCP server that exits', () => {
  it('logs the reason of its exit, not that of a start that failed meanwhile', async () => {
    // The first connection connects and lists; the next one fails to connect.
    fakes.plans.push(
      { holdStderr: true },
      { connect: () => Promise.reject(new Error('no such command')) },
    );
    const { log, events } = recordingLog();
    const runner = createServerRunner(fixtureServer(), runnerDeps(log, new FakeClock()));
    expect(await runner.ensure()).toMatchObject({ ok: true });

    fakes.made[0]!.exit();
    // A first crash restarts at once; this start fails while the exit's stderr is awaited.
    expect(await runner.ensure()).toMatchObject({
      ok: false,
      reason: 'it could not be started: no such command',
    });
    fakes.made[0]!.drainStderr();
    await vi.waitFor(() => expect(events('mcp_server_exited')).toHaveLength(1));

    expect(events('mcp_server_exited')[0]).toMatchObject({ reason: 'the server exited' });
  });
});
