import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMcpHub } from '../../src/mcp/hub.ts';
import { fixtureArgs } from '../support/built.ts';
import { type Captured, spawnNode } from '../support/child.ts';
import { FakeClock } from '../support/fake-clock.ts';
import {
  fixtureServer,
  idle,
  isAlive,
  recordingLog,
  startedPids,
  waitUntilGone,
} from './support.ts';

const PARENT = fileURLToPath(new URL('../fixtures/mcp/hub-parent.ts', import.meta.url));
const REPO = path.resolve(path.dirname(PARENT), '../../..');
const PROCESS_TIMEOUT = 60_000;

const cleanups: (() => Promise<void>)[] = [];
const leftovers: number[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  // A failed test must not leave a server running on the machine.
  for (const pid of leftovers.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

/** A file where `fork` servers log their grandchildren's pids; removed after the test. */
function childLog(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-orphans-'));
  cleanups.push(async () => {
    // A failed test must not leave a grandchild running either.
    for (const pid of startedPids(path.join(dir, 'children')))
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return path.join(dir, 'children');
}

/** A satchel-like process with one fixture server (see hub-parent.ts); its server's pid. */
async function parentWithServer(
  mode: string,
  then: 'wait' | 'crash' | 'close',
  env: Record<string, string> = {},
): Promise<{ parent: Captured; pid: number }> {
  const parent = spawnNode(
    [...fixtureArgs('test/fixtures/mcp/hub-parent.ts'), mode, then],
    {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdin: 'ignore',
    },
    (cleanup) => cleanups.push(cleanup),
  );
  const line = await vi.waitFor(
    () => {
      const first = parent.stdout().split('\n')[0];
      if (!first) throw new Error(`no pid yet; stderr: ${parent.stderr()}`);
      return first;
    },
    { timeout: PROCESS_TIMEOUT, interval: 50 },
  );
  const { pid } = JSON.parse(line) as { pid: number };
  leftovers.push(pid);
  // (After `close` it may already be gone.)
  if (then !== 'close') expect(isAlive(pid)).toBe(true);
  return { parent, pid };
}

describe('no MCP server outlives satchel', () => {
  it(
    'close() stops every server, one that ignores EOF and SIGTERM too, and waits for them',
    async () => {
      const recorded = recordingLog();
      const hub = createMcpHub({ log: recorded.log, closeGraceMs: 500 });
      const polite = fixtureServer({ name: 'polite' });
      const stubborn = fixtureServer({ name: 'stubborn', env: { MCP_FIXTURE_MODE: 'ignore-eof' } });
      await hub.tools([polite, stubborn], idle());
      const pids = [
        Number((await hub.call(polite, 'pid', {}, idle())).text),
        Number((await hub.call(stubborn, 'pid', {}, idle())).text),
      ];
      leftovers.push(...pids);

      await hub.close();

      for (const pid of pids) await waitUntilGone(pid);
      expect(recorded.events('mcp_server_exited')).toEqual([]);
      expect((await hub.tools([polite], idle())).failed).toEqual([
        { server: 'polite', reason: 'satchel is shutting down' },
      ]);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'a crash-looping server that starts a helper each time leaves none behind, nor does close()',
    async () => {
      const clock = new FakeClock();
      const hub = createMcpHub({ log: recordingLog().log, clock, closeGraceMs: 500 });
      const children = childLog();
      const looping = fixtureServer({
        name: 'looping',
        env: { MCP_FIXTURE_MODE: 'fork-crash', MCP_FIXTURE_CHILD_LOG: children },
      });
      const running = fixtureServer({
        name: 'running',
        env: { MCP_FIXTURE_MODE: 'fork', MCP_FIXTURE_CHILD_LOG: children },
      });
      for (let i = 0; i < 3; i++) {
        expect((await hub.tools([looping], idle())).failed).toHaveLength(1);
        clock.advance(60_000);
      }
      await hub.tools([running], idle());
      const grandchildren = startedPids(children);
      expect(grandchildren).toHaveLength(4);
      // The running server's helper lives as long as the server.
      expect(isAlive(grandchildren[3]!)).toBe(true);

      await hub.close();

      for (const pid of grandchildren) await waitUntilGone(pid);
    },
    PROCESS_TIMEOUT,
  );

  it(
    "stops a server's helper when satchel is killed with SIGKILL (the guard signals its group)",
    async () => {
      const children = childLog();
      const { parent } = await parentWithServer('fork', 'wait', {
        MCP_FIXTURE_CHILD_LOG: children,
      });
      const [grandchild] = startedPids(children);
      expect(isAlive(grandchild!)).toBe(true);
      parent.child.kill('SIGKILL');
      await parent.exited;
      await waitUntilGone(grandchild!);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'lets the process end by itself after close() (the guard keeps nothing alive)',
    async () => {
      const { parent, pid } = await parentWithServer('', 'close');
      expect(await parent.exited).toBe(0);
      await waitUntilGone(pid);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'stops the server when satchel gets SIGTERM during a call',
    async () => {
      const { parent, pid } = await parentWithServer('', 'wait');
      parent.child.kill('SIGTERM');
      expect(await parent.exited).toBe(0);
      await waitUntilGone(pid);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'stops a server that ignores EOF when satchel crashes (uncaught exception)',
    async () => {
      const { parent, pid } = await parentWithServer('ignore-eof', 'crash');
      expect(await parent.exited).not.toBe(0);
      expect(parent.stderr()).toMatch(/satchel crashed on purpose/);
      await waitUntilGone(pid);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'an idle server of the SDK exits by itself on EOF when satchel is killed with SIGKILL',
    async () => {
      const { parent, pid } = await parentWithServer('', 'wait', {
        MCP_PARENT_IDLE: '1',
        MCP_PARENT_NO_GUARD: '1',
      });
      parent.child.kill('SIGKILL');
      await parent.exited;
      await waitUntilGone(pid);
    },
    PROCESS_TIMEOUT,
  );

  // EOF is not enough: a call in flight keeps an SDK server running, and some servers ignore
  // EOF altogether. The orphan guard stops them.
  it.each([
    ['a server of the SDK with a call in flight', ''],
    ['a server that ignores EOF and SIGTERM', 'ignore-eof'],
  ])(
    'stops %s when satchel is killed with SIGKILL',
    async (_label, mode) => {
      const { parent, pid } = await parentWithServer(mode, 'wait');
      parent.child.kill('SIGKILL');
      await parent.exited;
      await waitUntilGone(pid);
    },
    PROCESS_TIMEOUT,
  );
});
