/**
 * db_query benchmark (not a test): the real tool on the bundled journal pack, through the
 * pack's warm query pool.
 *
 *   npx tsx scripts/bench-db-query.ts     (part of: npm run bench)
 *
 * Reports (a) the latency of a simple query: the first one (it starts a child) and p50/p95
 * warm, against the old design's cost of starting a process per query; (b) how long past
 * its limit a runaway query takes to be stopped, by timeout and by abort, and what the next
 * query then costs; (c) how long a memory-hungry query takes to be stopped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/core/clock.ts';
import { loadPack } from '../src/packs/loader.ts';
import { openPackStorage } from '../src/packs/storage.ts';
import { sqliteDriver } from '../src/store/sqlite.ts';
import { createDbQueryTool } from '../src/tools/db-query.ts';
import type { Tool } from '../src/tools/tool.ts';

const ROWS = 10_000;
const WARM_RUNS = 1000;
const RUNAWAY =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
/** One 400 MB allocation, and a string that grows 2 MB a row (each stops at ~1 GB untouched). */
const MEMORY_HOGS = [
  ['one 400 MB blob', 'SELECT length(randomblob(400000000))'],
  [
    'growing group_concat',
    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) SELECT length(group_concat(hex(randomblob(1000000)))) FROM c',
  ],
] as const;
const SIMPLE = {
  sql: 'SELECT id, entry_date, mood, body FROM entries WHERE entry_date >= ? ORDER BY id DESC LIMIT 20',
  params: ['2025-06-01'],
};

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const home = mkdtempSync(path.join(tmpdir(), 'satchel-bench-db-query-'));
const storage = openPackStorage(home, loadPack(path.join(repo, 'packs', 'journal')));
const insert = storage.db.prepare('INSERT INTO entries (entry_date, mood, body) VALUES (?, ?, ?)');
storage.db.transaction(() => {
  for (let i = 0; i < ROWS; i++)
    insert.run(
      new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString().slice(0, 10),
      1 + (i % 5),
      `entry ${i}: a short paragraph about the day, long enough to look like a real one.`,
    );
})();

const idle = new AbortController().signal;
const dates = { clock: systemClock, timezone: 'UTC' };
const tool = createDbQueryTool(storage, dates);

/** Milliseconds one call takes, and whether it failed. */
async function time(
  t: Tool,
  args: unknown,
  signal = idle,
): Promise<{ ms: number; error?: string }> {
  const started = performance.now();
  try {
    await t.run(t.schema.parse(args), signal);
    return { ms: performance.now() - started };
  } catch (error) {
    return { ms: performance.now() - started, error: (error as Error).message };
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

// (a) Simple query latency.
const first = await time(tool, SIMPLE);
const warm: number[] = [];
for (let i = 0; i < WARM_RUNS; i++) warm.push((await time(tool, SIMPLE)).ms);
warm.sort((a, b) => a - b);
const spawnCost = processStartCost(10);

// (b) Runaway queries: stopped by the time limit, then by an abort.
const quick = createDbQueryTool(storage, dates, { timeoutMs: 200 });
const byTimeout = await time(quick, { sql: RUNAWAY });
const afterTimeout = await time(tool, SIMPLE);
const controller = new AbortController();
setTimeout(() => controller.abort(new Error('stopped')), 200);
const byAbort = await time(tool, { sql: RUNAWAY }, controller.signal);
const afterAbort = await time(tool, SIMPLE);

// (c) Queries that ask for hundreds of MB.
const roomy = createDbQueryTool(storage, dates, { timeoutMs: 20_000 });
const hogs: { label: string; stop: Awaited<ReturnType<typeof time>>; after: number }[] = [];
for (const [label, sql] of MEMORY_HOGS)
  hogs.push({ label, stop: await time(roomy, { sql }), after: (await time(tool, SIMPLE)).ms });
const stats = storage.queries.stats();

storage.close();
rmSync(home, { recursive: true, force: true });

console.log(`\ndb_query on the journal pack (${ROWS} entries; simple query: 20 rows by date)\n`);
console.log(`first query (starts a child)       ${fmt(first.ms)}`);
console.log(
  `warm, ${WARM_RUNS} runs                     p50 ${fmt(quantile(warm, 0.5))}  p95 ${fmt(quantile(warm, 0.95))}  p99 ${fmt(quantile(warm, 0.99))}`,
);
console.log(`process start per query (old way)  median ${fmt(spawnCost)}`);
console.log(
  `runaway, 200 ms limit              stopped after ${fmt(byTimeout.ms)} (${byTimeout.error})`,
);
console.log(`  next query (starts a new child)  ${fmt(afterTimeout.ms)}`);
console.log(
  `runaway, aborted at 200 ms         stopped after ${fmt(byAbort.ms)} (${byAbort.error})`,
);
console.log(`  next query (starts a new child)  ${fmt(afterAbort.ms)}`);
for (const hog of hogs) {
  console.log(
    `memory: ${hog.label.padEnd(26)} stopped after ${fmt(hog.stop.ms)} (${hog.stop.error})`,
  );
  console.log(`  next query (starts a new child)  ${fmt(hog.after)}`);
}
console.log(`children started: ${stats.started}; peak running at once: ${stats.peakRunning}`);
console.log(`\npeak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

/** The median cost of starting `node`, loading better-sqlite3 and running one query. */
function processStartCost(runs: number): number {
  const source = `const D = require(${JSON.stringify(sqliteDriver.path)}); const db = new D(${JSON.stringify(storage.dbFile)}, { readonly: true }); db.prepare('SELECT count(*) FROM entries').get();`;
  const costs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', source], { env: {}, stdio: 'ignore' });
    costs.push(performance.now() - started);
  }
  return quantile(
    costs.sort((a, b) => a - b),
    0.5,
  );
}
