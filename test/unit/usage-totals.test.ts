import { afterEach, describe, expect, it } from 'vitest';
import { openCoreStore } from '../../src/store/client.ts';
import { createTotals, type Totals } from '../../src/usage/totals.ts';
import { seedLedger, tempCoreStore } from '../support/usage-seed.ts';

const TODAY = '2026-11-22';
let env: ReturnType<typeof tempCoreStore>;
afterEach(() => env?.close());

/** The three sums the gate asks for; costs to the micro-dollar (added up in another order). */
function sums(totals: ReturnType<typeof createTotals>) {
  const rounded = (t: Totals) => ({ ...t, costUsd: Number(t.costUsd.toFixed(9)) });
  return {
    day: rounded(totals.day(TODAY)),
    pack: rounded(totals.packDay('vocab', TODAY)),
    session: rounded(totals.session('session-vocab')),
  };
}

const call = (ago: number, turn: string) => ({
  ago,
  pack: 'vocab',
  turn,
  input: 1000,
  output: 100,
});

describe('the quota gate’s running totals', () => {
  it('count the calls booked after a sum was first read, once each', () => {
    env = tempCoreStore();
    seedLedger(env.store);
    const running = createTotals(env.store.db);
    const before = sums(running);
    seedLedger(env.store, [call(3, 'later-1'), call(2, 'later-2')]);
    const after = sums(running);

    // A fresh reader sums the whole ledger.
    expect(after).toEqual(sums(createTotals(env.store.db)));
    expect(after.day.calls).toBe(before.day.calls + 2);
    expect(after.pack.tokens).toBe(before.pack.tokens + 2200);
    expect(after.session.costUsd).toBeGreaterThan(before.session.costUsd);
  });

  it('count calls another process booked in the same ledger (satchel chat)', () => {
    env = tempCoreStore();
    seedLedger(env.store);
    const running = createTotals(env.store.db);
    const before = running.day(TODAY);
    const other = openCoreStore(env.home);
    try {
      seedLedger(other, [call(1, 'from-chat')]);
    } finally {
      other.close();
    }
    const after: Totals = running.day(TODAY);
    expect(after.calls).toBe(before.calls + 1);
    expect(after.tokens).toBe(before.tokens + 1100);
  });

  it('read a sum first asked for after other rows came in without counting them twice', () => {
    env = tempCoreStore();
    const running = createTotals(env.store.db);
    running.day(TODAY); // sees the empty ledger; the session sum is not read yet
    seedLedger(env.store, [call(4, 'one'), call(3, 'two')]);
    expect(running.session('session-vocab')).toMatchObject({ calls: 2, tokens: 2200 });
    expect(running.day(TODAY)).toMatchObject({ calls: 2, tokens: 2200 });
  });
});
