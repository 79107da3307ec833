import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMcpHub } from '../../src/mcp/hub.ts';
import type { McpHub } from '../../src/mcp/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import {
  fixtureServer,
  idle,
  isAlive,
  recordingLog,
  startedPids,
  waitUntilGone,
} from './support.ts';

let dir: string;
let hub: McpHub | undefined;
let clock: FakeClock;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-'));
  clock = new FakeClock();
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function open() {
  const recorded = recordingLog();
  hub = createMcpHub({ log: recorded.log, clock, closeGraceMs: 1000 });
  return { hub, ...recorded };
}

const pidOf = async (h: McpHub, server: ReturnType<typeof fixtureServer>) =>
  Number((await h.call(server, 'pid', {}, idle())).text);

/** Lets the hub's promise callbacks run (a start that failed, a log after a close). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the MCP hub: timeouts, /stop, crashes and hangs', () => {
  it('fails a call that outlives timeout_ms with a ToolError naming server, tool and limit', async () => {
    const { hub } = open();
    const cancelFile = path.join(dir, 'cancelled');
    const server = fixtureServer({ timeoutMs: 1000, env: { MCP_FIXTURE_CANCEL_FILE: cancelFile } });
    await hub.tools([server], idle());

    const call = hub.call(server, 'slow', {}, idle());
    let ended = false;
    void call.catch(() => {}).finally(() => (ended = true));
    await vi.waitFor(() => expect(readFileSync(cancelFile, 'utf8')).toBe('started'), {
      timeout: 10_000,
    });
    // timeout_ms is on the hub's clock: a millisecond short of it, the call still waits.
    clock.advance(999);
    await settle();
    expect(ended).toBe(false);
    clock.advance(1);
    await expect(call).rejects.toMatchObject({
      code: 'tool_error',
      message: 'The MCP tool fx/slow did not answer within 1000 ms (timeout_ms).',
    });
    // The server was told to stop the call.
    await vi.waitFor(() => expect(readFileSync(cancelFile, 'utf8')).toBe('cancelled'), {
      timeout: 10_000,
    });
  });

  it('rejects with the reason of an aborted signal and tells the server to cancel', async () => {
    const { hub } = open();
    const cancelFile = path.join(dir, 'cancelled');
    const server = fixtureServer({ env: { MCP_FIXTURE_CANCEL_FILE: cancelFile } });
    await hub.tools([server], idle());
    const stop = new AbortController();
    const reason = new Error('stopped by /stop');

    const call = hub.call(server, 'slow', {}, stop.signal);
    await vi.waitFor(() => expect(readFileSync(cancelFile, 'utf8')).toBe('started'), {
      timeout: 10_000,
    });
    stop.abort(reason);

    await expect(call).rejects.toBe(reason);
    await vi.waitFor(() => expect(readFileSync(cancelFile, 'utf8')).toBe('cancelled'), {
      timeout: 10_000,
    });
    expect((await hub.call(server, 'echo', { text: 'next' }, idle())).text).toBe('next');
  });

  it('restarts a crashed server on the next use, after a backoff once it crashed twice', async () => {
    const { hub, events } = open();
    const server = fixtureServer();
    await hub.tools([server], idle());
    const first = await pidOf(hub, server);

    await expect(hub.call(server, 'crash', {}, idle())).rejects.toMatchObject({
      code: 'tool_error',
      message: expect.stringMatching(/fx\/crash failed: the server exited during the call/),
    });
    await vi.waitFor(() => expect(events('mcp_server_exited')).toHaveLength(1));
    const second = await pidOf(hub, server);
    expect(second).not.toBe(first);
    expect(isAlive(first)).toBe(false);

    // Two crashes in a row (the second call restarts it, and it crashes again): a wait.
    await expect(hub.call(server, 'crash', {}, idle())).rejects.toThrow(/exited during the call/);
    await settle();
    await expect(hub.call(server, 'crash', {}, idle())).rejects.toThrow(/exited during the call/);
    await settle();
    await expect(hub.call(server, 'echo', { text: 'x' }, idle())).rejects.toThrow(
      /fx is not available: the server exited \(stderr: fixture: crashing in a call on purpose\) \(next try in 1 s\)/,
    );
    expect((await hub.tools([server], idle())).failed).toMatchObject([{ server: 'fx' }]);

    clock.advance(1000);
    expect(await pidOf(hub, server)).not.toBe(second);
    await vi.waitFor(() => expect(events('mcp_server_exited')).toHaveLength(3));
    expect(events('mcp_server_exited').map((l) => l.restartInMs)).toEqual([0, 0, 1000]);
  });

  it('backs off 1 s, 2 s, 4 s … between starts of a server that crashes at start', async () => {
    const { hub, events } = open();
    const starts = path.join(dir, 'starts');
    const server = fixtureServer({
      env: { MCP_FIXTURE_MODE: 'crash-start', MCP_FIXTURE_START_LOG: starts },
    });

    const first = await hub.tools([server], idle());
    expect(first).toEqual({
      tools: [],
      failed: [
        {
          server: 'fx',
          reason:
            'it could not be started: the server exited (stderr: fixture: crashing at start on purpose)',
          logged: true,
        },
      ],
    });
    expect(events('mcp_start_failed')).toMatchObject([{ pack: 'notes', retryInMs: 1000 }]);

    // Within the backoff: the same failure, already logged (a turn need not warn again).
    expect((await hub.tools([server], idle())).failed[0]).toMatchObject({
      reason: expect.stringMatching(/next try in 1 s\)$/),
      logged: true,
    });
    expect(startedPids(starts)).toHaveLength(1);
    clock.advance(1000);
    await hub.tools([server], idle());
    expect(startedPids(starts)).toHaveLength(2);
    clock.advance(1999);
    await hub.tools([server], idle());
    expect(startedPids(starts)).toHaveLength(2);
    clock.advance(1);
    await hub.tools([server], idle());
    expect(startedPids(starts)).toHaveLength(3);
    expect(events('mcp_start_failed').map((l) => l.retryInMs)).toEqual([1000, 2000, 4000]);
  });

  it("answers pack B while pack A's server hangs at start, then fails A at its timeout", async () => {
    const { hub, events } = open();
    const starts = path.join(dir, 'starts');
    const hanging = fixtureServer({
      pack: 'a',
      env: { MCP_FIXTURE_MODE: 'hang-start', MCP_FIXTURE_START_LOG: starts },
    });
    const healthy = fixtureServer({ pack: 'b' });

    let aDone = false;
    const a = hub.tools([hanging], idle()).finally(() => {
      aDone = true;
    });
    const b = await hub.tools([healthy], idle());
    expect(b.failed).toEqual([]);
    expect((await hub.call(healthy, 'add', { a: 1, b: 2 }, idle())).text).toBe('3');
    expect(aDone).toBe(false);

    // A /stop while waiting for the hanging start ends that wait only.
    const stop = new AbortController();
    const waiting = hub.tools([hanging], stop.signal);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');

    await vi.waitFor(() => expect(startedPids(starts)).toHaveLength(1));
    const [pid] = startedPids(starts);
    clock.advance(30_000);
    expect(await a).toEqual({
      tools: [],
      failed: [
        {
          server: 'fx',
          reason: 'it could not be started: it did not start within 30000 ms',
          logged: true,
        },
      ],
    });
    expect(events('mcp_start_failed')).toMatchObject([{ pack: 'a', server: 'fx' }]);
    await waitUntilGone(pid!);
    expect(existsSync(starts)).toBe(true);
  });

  it('closes during a start: it ends as shutting down, its process is gone, no tools after', async () => {
    const { hub, events } = open();
    const starts = path.join(dir, 'starts');
    const server = fixtureServer({
      env: { MCP_FIXTURE_MODE: 'hang-start', MCP_FIXTURE_START_LOG: starts },
    });

    const start = hub.tools([server], idle());
    await vi.waitFor(() => expect(startedPids(starts)).toHaveLength(1), { timeout: 10_000 });
    const [pid] = startedPids(starts);
    await hub.close();

    expect(await start).toMatchObject({
      tools: [],
      failed: [{ server: 'fx', reason: 'satchel is shutting down' }],
    });
    await waitUntilGone(pid!);
    expect((await hub.tools([server], idle())).failed).toMatchObject([
      { reason: 'satchel is shutting down' },
    ]);
    expect(startedPids(starts)).toHaveLength(1);
    expect(events('mcp_server_started')).toEqual([]);
    expect(events('mcp_start_failed')).toEqual([]);
  });
});
