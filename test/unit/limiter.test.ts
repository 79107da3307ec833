import { describe, expect, it } from 'vitest';
import {
  createLimiter,
  type LimiterOptions,
  type Priority,
  type Release,
} from '../../src/outbound/limiter.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** Asks for slots and records the order they were granted in. */
function rig(options: Omit<LimiterOptions, 'clock'>) {
  const clock = new FakeClock();
  const limiter = createLimiter({ clock, ...options });
  const granted: string[] = [];
  const releases = new Map<string, Release>();
  const ask = (name: string, priority: Priority, signal?: AbortSignal) =>
    limiter.acquire(priority, signal).then(
      (release) => {
        granted.push(name);
        releases.set(name, release);
      },
      () => granted.push(`${name}:aborted`),
    );
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  const release = (name: string) => releases.get(name)!();
  /** Asks one after another, then lets the limiter grant what it will. */
  const askInTurn = async (...asks: [string, Priority][]) => {
    for (const [name, priority] of asks) void ask(name, priority);
    await flush();
  };
  return { clock, limiter, granted, ask, askInTurn, flush, release };
}

describe('the global limiter', () => {
  it('grants a whole window of calls at once, with no spacing', async () => {
    const r = rig({ perWindow: 25 });
    for (let i = 0; i < 25; i++) void r.ask(`m${i}`, 'message');
    await r.flush();
    expect(r.granted).toHaveLength(25);
    expect(r.limiter.inWindow()).toBe(25);
  });

  it('counts a call from when it ended: the next waits a window after the first ended', async () => {
    const r = rig({ perWindow: 2 });
    await r.askInTurn(['a', 'message'], ['b', 'message'], ['c', 'message']);
    expect(r.granted).toEqual(['a', 'b']);

    r.clock.advance(5000); // a slow call: still running, still counted
    await r.flush();
    expect(r.granted).toEqual(['a', 'b']);

    r.release('a');
    r.clock.advance(999);
    await r.flush();
    expect(r.granted).toEqual(['a', 'b']);
    r.clock.advance(1);
    await r.flush();
    expect(r.granted).toEqual(['a', 'b', 'c']);
  });

  it('grants messages before typing and drafts that asked earlier', async () => {
    const r = rig({ perWindow: 1 });
    await r.askInTurn(['first', 'message'], ['typing', 'side'], ['reply', 'message']);
    r.release('first');
    r.clock.advance(1000);
    await r.flush();
    expect(r.granted).toEqual(['first', 'reply']);
    r.release('reply');
    r.clock.advance(1000);
    await r.flush();
    expect(r.granted).toEqual(['first', 'reply', 'typing']);
  });

  it('keeps strangers to their own budget and out of the slots kept for users', async () => {
    const r = rig({ perWindow: 10, strangerPerWindow: 3, reservedForUsers: 4 });
    for (let i = 0; i < 8; i++) void r.ask(`s${i}`, 'stranger');
    await r.flush();
    expect(r.granted).toEqual(['s0', 's1', 's2']);

    for (let i = 0; i < 7; i++) void r.ask(`u${i}`, 'message');
    await r.flush();
    // 3 strangers + 7 users = the whole window; no user waited for a stranger.
    expect(r.granted.filter((g) => g.startsWith('u'))).toHaveLength(7);

    for (const name of [...r.granted]) r.release(name);
    r.clock.advance(1000);
    await r.flush();
    // The next window lets three more strangers through, and no more.
    expect(r.granted.filter((g) => g.startsWith('s'))).toHaveLength(6);
  });

  it('never lets strangers take the reserved slots, even when users are quiet', async () => {
    const r = rig({ perWindow: 10, strangerPerWindow: 10, reservedForUsers: 4 });
    for (let i = 0; i < 10; i++) void r.ask(`s${i}`, 'stranger');
    await r.flush();
    expect(r.granted).toHaveLength(6);
    void r.ask('user', 'message');
    await r.flush();
    expect(r.granted.at(-1)).toBe('user');
  });

  it('keeps slots for messages that typing and drafts never take', async () => {
    const r = rig({ perWindow: 10, reservedForMessages: 4 });
    for (let i = 0; i < 8; i++) void r.ask(`t${i}`, 'side');
    await r.flush();
    expect(r.granted).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    for (let i = 0; i < 4; i++) void r.ask(`m${i}`, 'message');
    await r.flush();
    // The window is full of typing, and every reply still went out at once.
    expect(r.granted.slice(6)).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('drops a waiting call whose signal fires', async () => {
    const r = rig({ perWindow: 1 });
    void r.ask('a', 'message');
    const dropped = new AbortController();
    void r.ask('draft', 'side', dropped.signal);
    void r.ask('b', 'side');
    await r.flush();
    dropped.abort();
    await r.flush();
    r.release('a');
    r.clock.advance(1000);
    await r.flush();
    expect(r.granted).toEqual(['a', 'draft:aborted', 'b']);
  });
});
