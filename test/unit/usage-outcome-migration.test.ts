import { describe, expect, it } from 'vitest';
import { openCoreStore } from '../../src/store/client.ts';
import { createTotals } from '../../src/usage/totals.ts';
import { databaseBefore } from '../support/older-database.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-outcome-');

describe('migration 0010_usage_outcome', () => {
  it('stops counting the calls booked before it that failed or were stopped with nothing back', () => {
    // The migrations up to 0009 only: a ledger from before `counted` existed.
    const { home, sqlite } = databaseBefore('0010', temp);
    const insert = sqlite.prepare(
      `INSERT INTO usage_events (ts, day, kind, provider, model, input_tokens, output_tokens,
         audio_seconds, cost_usd, price_known, latency_ms, ok, error)
       VALUES (1, '2026-11-22', ?, 'openai', 'm', ?, ?, ?, 0, 1, 5, ?, ?)`,
    );
    insert.run('llm', 100, 20, 0, 1, null); // answered
    insert.run('llm', 0, 0, 0, 0, 'aborted'); // stopped before any answer
    insert.run('llm', 0, 0, 0, 0, 'openai answered 400: bad request'); // refused
    insert.run('llm', 50, 5, 0, 0, 'aborted'); // stopped after usage was booked
    insert.run('stt', 0, 0, 12, 0, 'aborted'); // audio sent, then stopped
    sqlite.close();

    const store = openCoreStore(home);
    try {
      expect(store.sqlite.prepare('SELECT counted FROM usage_events ORDER BY id').all()).toEqual([
        { counted: 1 },
        { counted: 0 },
        { counted: 0 },
        { counted: 1 },
        { counted: 1 },
      ]);
      expect(createTotals(store.db).day('2026-11-22')).toMatchObject({ calls: 3, tokens: 175 });
    } finally {
      store.close();
    }
  });
});
