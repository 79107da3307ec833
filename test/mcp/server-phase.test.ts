/**
 * The server runner's transitions as plain functions: each takes a state and an event and
 * returns the next state, or the same state when the event does not apply to its phase.
 */
import { describe, expect, it } from 'vitest';
import type { McpConnection } from '../../src/mcp/connection.ts';
import type { Deadline } from '../../src/mcp/deadline.ts';
import {
  type Availability,
  begin,
  closed,
  flooded,
  healthy,
  initialState,
  lost,
  type Phase,
  type RunnerState,
  relistBegun,
  relisted,
  retryIn,
  started,
  startFailed,
  toolsChanged,
} from '../../src/mcp/server-phase.ts';
import type { McpTool } from '../../src/mcp/types.ts';

const conn = { name: 'running' } as unknown as McpConnection;
const other = { name: 'another' } as unknown as McpConnection;
const inFlight = {
  deadline: {} as Deadline,
  attempt: new Promise<Availability>(() => {}),
};
const tool = (name: string): McpTool => ({
  server: 'fx',
  tool: name,
  description: '',
  inputSchema: { type: 'object' },
});
const NOW = 1_000_000;
const why = () => 'why';

const at = (phase: Phase, strikes = 0): RunnerState => ({ phase, strikes });
const idle = at({ tag: 'idle' });
const starting = at({ tag: 'starting', connection: conn, stale: false, ...inFlight });
const ready = at({ tag: 'ready', connection: conn, tools: [tool('a')], stale: false });
const relisting = at({
  tag: 'relisting',
  connection: conn,
  tools: [tool('a')],
  stale: false,
  ...inFlight,
});
const backingOff = at({ tag: 'backing-off', until: NOW, reason: why }, 2);
const done = at({ tag: 'closed' });
const failure = { connection: conn, now: NOW, reason: why };

describe('server runner transitions', () => {
  it('begin: idle or backing-off → starting; closed stays closed', () => {
    expect(initialState()).toEqual(idle);
    expect(begin(idle, { connection: conn, ...inFlight }).phase).toMatchObject({
      tag: 'starting',
      connection: conn,
      stale: false,
    });
    expect(begin(backingOff, { connection: conn, ...inFlight })).toMatchObject({
      phase: { tag: 'starting' },
      strikes: 2,
    });
    expect(begin(done, { connection: conn, ...inFlight })).toBe(done);
  });

  it('started: starting → ready with the tools and what was announced; else nothing', () => {
    const announced = toolsChanged(starting, conn);
    expect(started(announced, { connection: conn, tools: [tool('b')] }).phase).toEqual({
      tag: 'ready',
      connection: conn,
      tools: [tool('b')],
      stale: true,
    });
    expect(started(starting, { connection: other, tools: [] })).toBe(starting);
    expect(started(done, { connection: conn, tools: [] })).toBe(done);
  });

  it('startFailed: starting → backing-off, 1 s, 2 s, 4 s … 60 s from the failure', () => {
    const once = startFailed(starting, failure);
    expect(once).toEqual({
      phase: { tag: 'backing-off', until: NOW + 1000, reason: why },
      strikes: 1,
    });
    expect(retryIn(startFailed(at(starting.phase, 2), failure), NOW)).toBe(4000);
    expect(retryIn(startFailed(at(starting.phase, 20), failure), NOW)).toBe(60_000);
    // The connection could not even be made: the start that was to begin fails.
    expect(startFailed(idle, { ...failure, connection: undefined }).phase).toMatchObject({
      tag: 'backing-off',
      until: NOW + 1000,
    });
    expect(startFailed(starting, { ...failure, connection: other })).toBe(starting);
    expect(startFailed(done, failure)).toBe(done);
  });

  it('lost: ready or relisting → backing-off, the first loss after a good start free', () => {
    expect(lost(ready, failure)).toEqual({
      phase: { tag: 'backing-off', until: NOW, reason: why },
      strikes: 1,
    });
    expect(retryIn(lost(at(relisting.phase, 1), failure), NOW)).toBe(1000);
    for (const state of [idle, starting, backingOff, done])
      expect(lost(state, failure)).toBe(state);
    expect(lost(ready, { ...failure, connection: other })).toBe(ready);
  });

  it('flooded: starting, ready or relisting → backing-off, counted like a failed start', () => {
    for (const state of [starting, ready, relisting])
      expect(flooded(state, failure)).toEqual({
        phase: { tag: 'backing-off', until: NOW + 1000, reason: why },
        strikes: 1,
      });
    for (const state of [idle, backingOff, done]) expect(flooded(state, failure)).toBe(state);
    expect(flooded(ready, { ...failure, connection: other })).toBe(ready);
  });

  it('toolsChanged marks the running or starting connection stale; relistBegun clears it', () => {
    const stale = toolsChanged(ready, conn);
    expect(stale.phase).toMatchObject({ tag: 'ready', stale: true });
    expect(toolsChanged(ready, other)).toBe(ready);
    expect(toolsChanged(idle, conn)).toBe(idle);

    const listing = relistBegun(stale, inFlight);
    expect(listing.phase).toMatchObject({ tag: 'relisting', stale: false, tools: [tool('a')] });
    expect(relistBegun(starting, inFlight)).toBe(starting);
  });

  it('relisted: relisting → ready with the new list, or the old one when it failed', () => {
    expect(relisted(relisting, { connection: conn, tools: [tool('b')] }).phase).toMatchObject({
      tag: 'ready',
      tools: [tool('b')],
    });
    // A failed listing keeps the old list; a change announced during it waits for the next use.
    const announced = toolsChanged(relisting, conn);
    expect(relisted(announced, { connection: conn }).phase).toEqual({
      tag: 'ready',
      connection: conn,
      tools: [tool('a')],
      stale: true,
    });
    expect(relisted(backingOff, { connection: conn, tools: [] })).toBe(backingOff);
    expect(relisted(relisting, { connection: other, tools: [] })).toBe(relisting);
  });

  it('healthy clears the strikes; closed is final', () => {
    expect(healthy(backingOff).strikes).toBe(0);
    for (const state of [idle, starting, ready, relisting, backingOff])
      expect(closed(state).phase).toEqual({ tag: 'closed' });
    expect(lost(closed(ready), failure).phase.tag).toBe('closed');
  });
});
