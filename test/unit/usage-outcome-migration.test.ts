import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openCoreStore } from '../../src/store/client.ts';
import { Database } from '../../src/store/sqlite.ts';
import { createTotals } from '../../src/usage/totals.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-outcome-'));
  dirs.push(dir);
  return dir;
};

describe('migration 0010_usage_outcome', () => {
  it('stops counting the calls booked before it that failed or were stopped with nothing back', () => {
    // The migrations up to 0009 only: a ledger from before `counted` existed.
    const older = path.join(temp(), 'migrations');
    cpSync(MIGRATIONS, older, { recursive: true });
    const journal = path.join(older, 'meta', '_journal.json');
    const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries: { tag: string }[] };
    parsed.entries = parsed.entries.filter((e) => e.tag < '0010');
    writeFileSync(journal, JSON.stringify(parsed));
    const home = temp();
    const sqlite = new Database(path.join(home, 'satchel.db'));
    migrate(drizzle(sqlite), { migrationsFolder: older });
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
