/**
 * The server runner's transitions, driven through what its callers see (`ensure`'s answer,
 * the log lines, the connections made and stopped), over scripted fake connections that let
 * a test hold a start or a listing open at the step it needs.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/core/ports.ts';
import type { Flood } from '../../src/mcp/flood-meter.ts';
import { createServerRunner } from '../../src/mcp/server.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { fakes, gate, listed } from './fake-connection.ts';
import { fixtureServer, recordingLog, runnerDeps } from './support.ts';

vi.mock('../../src/mcp/connection.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/mcp/connection.ts')>()),
  createConnection: (await import('./fake-connection.ts')).createFakeConnection,
}));

let clock: FakeClock;
beforeEach(() => {
  fakes.plans.length = 0;
  fakes.made.length = 0;
  clock = new FakeClock();
});

/** A runner whose server listed ['echo'], announced a change, and never answers the re-list. */
async function relistThatHangs() {
  fakes.plans.push({ list: lists(['echo'], new Promise(() => {})) });
  const opened = open();
  await opened.runner.ensure();
  fakes.made[0]!.hooks.onToolsChanged();
  return { ...opened, relist: opened.runner.ensure() };
}

function open(log = recordingLog()) {
  return { ...log, runner: createServerRunner(fixtureServer(), runnerDeps(log.log, clock)) };
}

const toolNames = (answer: Awaited<ReturnType<ReturnType<typeof open>['runner']['ensure']>>) =>
  answer.ok ? answer.tools.map((t) => t.tool) : answer.reason;

/** A tool list, as the n-th listing of a connection answers it. */
const lists =
  (...answers: Array<string[] | Error | Promise<{ tools: unknown[] }>>) =>
  (n: number) => {
    const answer = answers[Math.min(n, answers.length - 1)]!;
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer instanceof Promise) return answer;
    return Promise.resolve({ tools: answer.map(listed) });
  };

const shuttingDown = { ok: false, reason: 'satchel is shutting down', logged: false };

describe('the server runner: starting', () => {
  it('idle → starting → ready: one start for concurrent callers, then the same tools', async () => {
    const connect = gate<void>();
    fakes.plans.push({ connect: () => connect.promise });
    const { runner, events } = open();

    const first = runner.ensure();
    const second = runner.ensure();
    connect.resolve();
    expect(toolNames(await first)).toEqual(['echo']);
    expect(await second).toBe(await first);
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
    expect(fakes.made).toHaveLength(1);
    expect(events('mcp_server_started')).toMatchObject([{ tools: 1 }]);
  });

  it('starting → backing-off: a start that outlives timeout_ms fails, stopped, and waits 1 s', async () => {
    fakes.plans.push({ connect: () => new Promise(() => {}) });
    const { runner, events } = open();

    const start = runner.ensure();
    clock.advance(30_000);
    expect(await start).toEqual({
      ok: false,
      reason: 'it could not be started: it did not start within 30000 ms',
      logged: true,
    });
    expect(fakes.made[0]!.stops).toBe(1);
    expect(events('mcp_start_failed')).toMatchObject([{ retryInMs: 1000 }]);
    expect(toolNames(await runner.ensure())).toMatch(/\(next try in 1 s\)$/);
    clock.advance(1000);
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
  });

  it('starting → backing-off: a flood during the start fails it with the flood as reason', async () => {
    fakes.plans.push({ connect: () => new Promise(() => {}) });
    const { runner, events } = open();
    const flood: Flood = { kind: 'stderr', perSecond: 2e6, limit: 1e6, seconds: 5 };

    const start = runner.ensure();
    fakes.made[0]!.hooks.onFlood(flood);
    expect(await start).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^it flooded satchel \(.*\) and was stopped$/),
      logged: true,
    });
    expect(fakes.made[0]!.isClosed()).toBe(true);
    expect(events('mcp_server_flooding')).toMatchObject([{ kind: 'stderr', restartInMs: 1000 }]);
    expect(events('mcp_start_failed')).toEqual([]);
  });

  it('a change announced during the start is read on the next use', async () => {
    const listing = gate<{ tools: unknown[] }>();
    fakes.plans.push({ list: lists(listing.promise, ['echo', 'late']) });
    const { runner } = open();

    const start = runner.ensure();
    await vi.waitFor(() => expect(fakes.made).toHaveLength(1));
    fakes.made[0]!.hooks.onToolsChanged();
    listing.resolve({ tools: [listed('echo')] });
    expect(toolNames(await start)).toEqual(['echo']);
    expect(toolNames(await runner.ensure())).toEqual(['echo', 'late']);
  });
});

describe('the server runner: re-listing', () => {
  it('ready → relisting → ready: a failed re-list keeps the old tool list', async () => {
    fakes.plans.push({ list: lists(['echo'], new Error('list broke'), ['echo', 'added']) });
    const { runner, events } = open();
    expect(toolNames(await runner.ensure())).toEqual(['echo']);

    fakes.made[0]!.hooks.onToolsChanged();
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
    expect(events('mcp_tools_relist_failed')).toMatchObject([{ reason: 'list broke' }]);
    expect(events('mcp_tools_changed')).toEqual([]);
    // Kept until the next announcement: no listing on each use meanwhile.
    expect(toolNames(await runner.ensure())).toEqual(['echo']);

    fakes.made[0]!.hooks.onToolsChanged();
    expect(toolNames(await runner.ensure())).toEqual(['echo', 'added']);
    expect(events('mcp_tools_changed')).toMatchObject([{ tools: 2 }]);
    expect(fakes.made).toHaveLength(1);
  });

  it('a re-list that outlives timeout_ms keeps the old list, and names the limit', async () => {
    const { events, relist } = await relistThatHangs();
    clock.advance(30_000);
    expect(toolNames(await relist)).toEqual(['echo']);
    expect(events('mcp_tools_relist_failed')).toMatchObject([
      { reason: 'it did not list its tools within 30000 ms' },
    ]);
  });

  it('relisting → closed: close aborts the re-list and stops the server, quietly', async () => {
    const { runner, events, relist } = await relistThatHangs();
    await runner.close();
    expect(await relist).toEqual(shuttingDown);
    expect(fakes.made[0]!.stops).toBe(1);
    expect(events('mcp_tools_relist_failed')).toEqual([]);
  });
});

describe('the server runner: exits, drops and backoff', () => {
  it('ready → backing-off: an exit restarts at once, a second in a row after 1 s', async () => {
    const { runner, events } = open();
    await runner.ensure();

    fakes.made[0]!.exit();
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
    fakes.made[1]!.exit();
    expect(toolNames(await runner.ensure())).toBe('the server exited (next try in 1 s)');
    clock.advance(1000);
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
    await vi.waitFor(() => expect(events('mcp_server_exited')).toHaveLength(2));
    expect(events('mcp_server_exited').map((l) => l.restartInMs)).toEqual([0, 1000]);
  });

  it('healthy clears the strikes: an exit after a call that went through restarts at once', async () => {
    const { runner } = open();
    await runner.ensure();
    fakes.made[0]!.exit();
    await runner.ensure();

    runner.healthy();
    fakes.made[1]!.exit();
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
    expect(fakes.made).toHaveLength(3);
  });

  it('drop stops the running connection, and ignores one that is no longer running', async () => {
    const { runner, events } = open();
    const first = await runner.ensure();
    if (!first.ok) throw new Error(first.reason);

    runner.drop(first.connection, new Error('session lost'));
    expect(fakes.made[0]!.stops).toBe(1);
    expect(toolNames(await runner.ensure())).toEqual(['echo']);
    runner.drop(first.connection, new Error('late'));
    expect(fakes.made[1]!.stops).toBe(0);
    await vi.waitFor(() => expect(events('mcp_server_exited')).toHaveLength(1));
    expect(events('mcp_server_exited')[0]).toMatchObject({
      reason: 'the connection failed: session lost',
    });
  });
});

describe('the server runner: closing', () => {
  it('starting → closed: the start is aborted, its connection stopped, no tools later', async () => {
    fakes.plans.push({ connect: () => new Promise(() => {}) });
    const { runner, events } = open();

    const start = runner.ensure();
    await runner.close();
    expect(await start).toEqual(shuttingDown);
    expect(fakes.made[0]!.stops).toBe(1);
    expect(await runner.ensure()).toEqual(shuttingDown);
    expect(fakes.made).toHaveLength(1);
    expect(events('mcp_server_started')).toEqual([]);
    expect(events('mcp_start_failed')).toEqual([]);
  });

  it('a close as the listing comes in: the start is over, nothing of it stays', async () => {
    const recorded = recordingLog();
    // The listing is in; `close` comes before the start has taken it (from the line about a
    // refused tool, written between the two).
    fakes.plans.push({ list: async () => ({ tools: [listed('echo'), { name: 'broken' }] }) });
    let closing: Promise<void> | undefined;
    const log: Logger = {
      ...recorded.log,
      warn: (line, message) => {
        recorded.log.warn(line, message);
        closing ??= runner.close();
      },
      child: () => log,
    };
    const runner = createServerRunner(fixtureServer(), runnerDeps(log, clock));

    expect(await runner.ensure()).toEqual(shuttingDown);
    await closing;
    expect(fakes.made[0]!.stops).toBe(1);
    expect(await runner.ensure()).toEqual(shuttingDown);
    expect(fakes.made).toHaveLength(1);
    expect(recorded.events('mcp_server_started')).toEqual([]);
  });

  it('ready → closed: the server is stopped, and no use starts it again', async () => {
    const { runner } = open();
    await runner.ensure();
    await runner.close();
    expect(fakes.made[0]!.stops).toBe(1);
    expect(await runner.ensure()).toEqual(shuttingDown);
    expect(fakes.made).toHaveLength(1);
  });
});
