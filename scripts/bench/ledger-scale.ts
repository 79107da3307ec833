/**
 * The quota gate and /usage as the ledger grows: each size is a fresh home whose ledger
 * has `rows` calls over the past two years, 200 of them today, about 100 per session. The
 * gate and the report are timed with every cap set, so every sum runs; the SQL they run is
 * captured and its query plan read (EXPLAIN QUERY PLAN), to show which index each uses.
 */
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../src/core/clock.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { createCalendar } from '../../src/usage/calendar.ts';
import { bundledCatalog } from '../../src/usage/catalog.ts';
import { createQuotaGate } from '../../src/usage/quota.ts';
import { usageReport } from '../../src/usage/report.ts';
import { createTotals } from '../../src/usage/totals.ts';
import { silentLog } from '../../test/support/usage-seed.ts';
import { seededSession, seedHome } from './seed.ts';
import { p50 } from './stats.ts';

/** High enough never to be reached, so that every cap's sum runs. */
const CAP = 1e12;

export interface LedgerPoint {
  rows: number;
  seedSeconds: number;
  quotaCheckMs: number;
  usageReportMs: number;
}

export interface LedgerScale {
  points: LedgerPoint[];
  /** Each ledger query the gate and the report ran, with its plan (at the largest size). */
  plans: { sql: string; plan: string }[];
}

export function measureLedger(sizes: readonly number[], newHome: () => string): LedgerScale {
  const points: LedgerPoint[] = [];
  let plans: LedgerScale['plans'] = [];
  for (const rows of sizes) {
    const home = newHome();
    const started = performance.now();
    seedHome(home, { conversations: Math.max(1, rows / 100), messages: 0, ledgerRows: rows });
    const seedSeconds = (performance.now() - started) / 1000;
    const measured = timeGateAndReport(home);
    points.push({ rows, seedSeconds, ...measured.times });
    plans = measured.plans;
  }
  return { points, plans };
}

function timeGateAndReport(home: string) {
  const store = openCoreStore(home);
  const seen = new Set<string>();
  const prepare = store.sqlite.prepare.bind(store.sqlite);
  store.sqlite.prepare = ((source: string) => {
    if (/usage_events/.test(source) && /^\s*select/i.test(source)) seen.add(source);
    return prepare(source);
  }) as typeof store.sqlite.prepare;
  try {
    const calendar = createCalendar('UTC');
    const caps = { dailyTokens: CAP, sessionTokens: CAP, dailyUsd: CAP };
    const totals = createTotals(store.db);
    const quota = createQuotaGate({
      caps,
      totals,
      calendar,
      clock: systemClock,
      log: silentLog,
      catalog: bundledCatalog(),
    });
    const sessionId = seededSession(0);
    const packCaps = { dailyTokens: CAP, dailyUsd: CAP };
    const pack = { name: 'journal', displayName: 'Journal', caps: packCaps };
    const times = {
      quotaCheckMs: timeIt(() => quota.check({ pack: 'journal', sessionId, packCaps })),
      usageReportMs: timeIt(() =>
        usageReport({ totals, calendar, caps, now: Date.now(), sessionId, pack }),
      ),
    };
    const plans = [...seen].map((sql) => ({ sql, plan: planOf(store.sqlite, sql) }));
    return { times, plans };
  } finally {
    store.close();
  }
}

/** The median of 200 runs, after 20 to warm up. */
function timeIt(fn: () => unknown): number {
  for (let i = 0; i < 20; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return p50(samples);
}

function planOf(db: ReturnType<typeof openCoreStore>['sqlite'], sql: string): string {
  const params = Array.from(sql.matchAll(/\?/g), () => 'x');
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((r) => r.detail).join('; ');
}
