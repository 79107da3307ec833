import { afterEach, describe, expect, it } from 'vitest';
import { createCalendar } from '../../src/usage/calendar.ts';
import { createLedger, type PaidCall } from '../../src/usage/ledger.ts';
import { createTotals } from '../../src/usage/totals.ts';
import { testCatalog } from '../support/catalog.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { SEED_TIMEZONE, tempCoreStore } from '../support/usage-seed.ts';

let env: ReturnType<typeof tempCoreStore>;
afterEach(() => env?.close());

const NOW = Date.UTC(2026, 11, 7, 12, 0);

function setup() {
  env = tempCoreStore();
  const clock = new FakeClock(NOW);
  const ledger = createLedger({
    db: env.store.db,
    clock,
    calendar: createCalendar(SEED_TIMEZONE),
    catalog: testCatalog(),
  });
  const totals = createTotals(env.store.db, { beforeRead: ledger.flush });
  const rows = () =>
    env.store.sqlite
      .prepare('SELECT ts, turn_id AS turn, input_tokens AS input FROM usage_events ORDER BY id')
      .all();
  return { clock, ledger, totals, rows };
}

const call = (turn: string, inputTokens: number): PaidCall => ({
  kind: 'llm',
  provider: 'openai',
  model: 'gpt-4.1-mini',
  scope: { pack: 'journal', chatId: '5001', threadId: null, sessionId: 's1', turnId: turn },
  inputTokens,
  outputTokens: 10,
  latencyMs: 100,
  ok: true,
});

const endOfTask = () => new Promise((resolve) => setImmediate(resolve));

describe('a model call booked at the end of its task (recordSoon)', () => {
  it('is in the ledger once the task has ended, with the time it was booked at', async () => {
    const { clock, ledger, rows } = setup();
    ledger.recordSoon(call('t1', 100));
    clock.advance(5_000);
    await endOfTask();
    expect(rows()).toEqual([{ ts: NOW, turn: 't1', input: 100 }]);
  });

  it('counts in the quota gate’s sums read in the same task', () => {
    const { ledger, totals } = setup();
    expect(totals.session('s1').tokens).toBe(0);
    ledger.recordSoon(call('t1', 100));
    expect(totals.session('s1')).toMatchObject({ tokens: 110, calls: 1 });
    expect(totals.day('2026-12-07')).toMatchObject({ tokens: 110, calls: 1 });
    // As the gate reads them: brought up to date once, for all its sums.
    ledger.recordSoon(call('t2', 200));
    expect(totals.together(() => [totals.day('2026-12-07'), totals.session('s1')])).toEqual([
      expect.objectContaining({ tokens: 320, calls: 2 }),
      expect.objectContaining({ tokens: 320, calls: 2 }),
    ]);
  });

  it('keeps the order of the calls when a row booked at once follows', async () => {
    const { ledger, rows } = setup();
    ledger.recordSoon(call('first', 1));
    ledger.recordSoon(call('second', 2));
    ledger.record(call('third', 3));
    await endOfTask();
    expect(rows().map((r) => (r as { turn: string }).turn)).toEqual(['first', 'second', 'third']);
  });

  it('is written by flush, as shutdown does before the database closes', async () => {
    const { ledger, rows } = setup();
    ledger.recordSoon(call('t1', 100));
    ledger.flush();
    expect(rows()).toHaveLength(1);
    env.store.close();
    // The end of the task finds the database closed and nothing left to write.
    await endOfTask();
  });
});

describe('a booking held for the end of its task that cannot be written', () => {
  it('ends no process: the rows are kept, and the next read writes them', async () => {
    const { ledger, totals, rows } = setup();
    env.store.sqlite.exec(`
      CREATE TABLE failing (on_ INTEGER);
      INSERT INTO failing VALUES (1);
      CREATE TEMP TRIGGER ledger_full BEFORE INSERT ON usage_events
        WHEN (SELECT on_ FROM failing) BEGIN SELECT RAISE(ABORT, 'disk full'); END;`);
    ledger.recordSoon(call('t1', 100));
    await endOfTask();
    expect(rows()).toEqual([]);
    expect(() => totals.day('2026-12-07')).toThrow('disk full');

    env.store.sqlite.exec('UPDATE failing SET on_ = 0');
    expect(totals.day('2026-12-07')).toMatchObject({ tokens: 110, calls: 1 });
    expect(rows()).toEqual([{ ts: NOW, turn: 't1', input: 100 }]);
  });
});
