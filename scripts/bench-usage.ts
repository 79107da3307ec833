/**
 * Usage benchmark (not a test): `GET /api/usage` and `satchel usage --json` over a ledger of
 * 100,000 calls, all inside the last 30 days (the worst case: every row is in the window).
 *
 *   npx tsx scripts/bench-usage.ts     (part of: npm run bench)
 *
 * Reports (a) the first /api/usage of a dashboard (one grouped pass over the covering index)
 * and later ones, each after a new call was booked (what a page open on the dashboard
 * costs every 10 s); (b) `satchel usage --json` from start to end; (c) the quota gate's
 * daily sum, run before every paid call; (d) the first /api/usage without the indexes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { createUsageCommand } from '../src/cli/usage.ts';
import type { Clock } from '../src/core/clock.ts';
import { createDashboard } from '../src/dashboard/server.ts';
import { openCoreStore } from '../src/store/client.ts';
import { openCoreReader } from '../src/store/read-only.ts';
import { createCalendar } from '../src/usage/calendar.ts';
import { bundledCatalog } from '../src/usage/catalog.ts';
import { createTotals } from '../src/usage/totals.ts';
import { silentLog } from '../test/support/usage-seed.ts';

const ROWS = 100_000;
const WARM_RUNS = 200;
const COLD_RUNS = 10;
const TOKEN = 'bench-token-0123456789';
const TIMEZONE = 'Europe/Berlin';
const NOW = Date.UTC(2026, 10, 22, 12);
const DAY_MS = 86_400_000;
const MODELS = [
  ['openai', 'gpt-4.1-mini', 0.4, 1.6],
  ['openai', 'gpt-4.1', 2, 8],
  ['gemini', 'gemini-2.5-flash', 0.3, 2.5],
  ['groq', 'llama-3.3-70b-versatile', 0.59, 0.79],
  ['openai', 'mystery-model-7', null, null],
] as const;
const PACKS = ['vocab', 'journal', 'habits', 'garden', null];

const clock: Clock = { now: () => NOW, setTimeout: () => 0 as never, clearTimeout: () => {} };

const home = mkdtempSync(path.join(tmpdir(), 'satchel-bench-usage-'));
const store = openCoreStore(home);
const calendar = createCalendar(TIMEZONE);

/** 100,000 calls over 30 days: turns of 1-4 calls, 90% chat, 7% speech, 3% vision. */
function seed(): void {
  const insert = store.sqlite.prepare(
    `INSERT INTO usage_events (ts, day, kind, provider, model, pack, chat_id, session_id,
       turn_id, input_tokens, output_tokens, audio_seconds, images, cost_usd, price_known,
       latency_ms, ok)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const session = store.sqlite.prepare(
    "INSERT INTO sessions (id, key, pack, address, kind, created_at) VALUES (?, ?, 'vocab', 'tg:1', ?, 0)",
  );
  store.sqlite.transaction(() => {
    for (let s = 0; s < 200; s++) session.run(`s${s}`, `k${s}`, s % 10 === 0 ? 'job' : 'chat');
    const start = NOW - 30 * DAY_MS + 60_000;
    for (let i = 0; i < ROWS; i++) {
      const ts = start + Math.floor((i * (30 * DAY_MS - 120_000)) / ROWS);
      const kind = i % 100 < 90 ? 'llm' : i % 100 < 97 ? 'stt' : 'vision';
      const [provider, model, inPrice, outPrice] =
        kind === 'stt' ? (['groq', 'whisper-large-v3-turbo', null, null] as const) : MODELS[i % 5]!;
      const input = kind === 'stt' ? 0 : 500 + ((i * 7919) % 20_000);
      const output = kind === 'stt' ? 0 : Math.round(input / 8);
      const audio = kind === 'stt' ? 5 + (i % 60) : 0;
      const cost =
        kind === 'stt'
          ? (0.04 * audio) / 3600
          : inPrice === null
            ? null
            : (input * inPrice + output * outPrice!) / 1e6;
      insert.run(
        ts,
        calendar.dayOf(ts),
        kind,
        provider,
        model,
        PACKS[Math.floor(i / 4) % 5],
        1000 + (i % 7),
        `s${Math.floor(i / 40) % 200}`,
        `t${Math.floor(i / 3)}`,
        input,
        output,
        audio,
        kind === 'vision' ? 1 : 0,
        cost,
        cost === null ? 0 : 1,
        300 + (i % 4000),
      );
    }
  })();
}

const book = store.sqlite.prepare(
  `INSERT INTO usage_events (ts, day, kind, provider, model, pack, turn_id, input_tokens,
     output_tokens, cost_usd, price_known, latency_ms, ok)
   VALUES (?, ?, 'llm', 'openai', 'gpt-4.1-mini', 'vocab', ?, 1000, 100, 0.00056, 1, 900, 1)`,
);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${ms(quantile(sorted, 0.5))}  p95 ${ms(quantile(sorted, 0.95))}  max ${ms(sorted.at(-1)!)}`;
};

/** A dashboard on a fresh read-only connection; `get` times one GET /api/usage. */
async function openDashboard() {
  const reader = openCoreReader(home)!;
  const dashboard = createDashboard({
    db: reader.db,
    catalog: bundledCatalog(),
    config: {
      port: 0,
      token: TOKEN,
      caps: { dailyTokens: 2_000_000, sessionTokens: 500_000, dailyUsd: 5 },
      timezone: TIMEZONE,
    },
    clock,
    log: silentLog,
  });
  const { url } = (await dashboard.start())!;
  const api = new URL('/api/usage', url).href;
  const headers = { authorization: `Bearer ${TOKEN}` };
  return {
    async get(): Promise<number> {
      const started = performance.now();
      const response = await fetch(api, { headers });
      const body = await response.text();
      if (response.status !== 200 || body.length < 100) throw new Error(`HTTP ${response.status}`);
      return performance.now() - started;
    },
    async close() {
      await dashboard.stop();
      reader.close();
    },
  };
}

async function coldRequests(): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const dashboard = await openDashboard();
    samples.push(await dashboard.get());
    await dashboard.close();
  }
  return samples;
}

async function cli(): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const stdout = new PassThrough().resume();
    const io = { stdin: new PassThrough(), stdout, stderr: process.stderr, cwd: home };
    const started = performance.now();
    const code = await createUsageCommand({ clock }).run(['--json'], {
      ...io,
      env: { SATCHEL_HOME: home, SATCHEL_TIMEZONE: TIMEZONE },
    });
    samples.push(performance.now() - started);
    if (code !== 0) throw new Error(`satchel usage exited ${code}`);
  }
  return samples;
}

function quotaSums(): number[] {
  const totals = createTotals(store.db);
  const day = calendar.dayOf(NOW);
  const samples: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const started = performance.now();
    totals.day(day);
    totals.packDay('vocab', day);
    samples.push(performance.now() - started);
  }
  return samples;
}

async function main(): Promise<void> {
  let started = performance.now();
  seed();
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  console.log(
    `\n/api/usage benchmark — node ${process.version}, ${ROWS.toLocaleString('en-US')} ledger ` +
      `rows in the last 30 days (seeded in ${ms(performance.now() - started)})\n`,
  );

  const cold = await coldRequests();
  const dashboard = await openDashboard();
  await dashboard.get();
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    book.run(NOW, calendar.dayOf(NOW), `live-${i}`);
    warm.push(await dashboard.get());
  }
  await dashboard.close();
  console.log(`(a) GET /api/usage over HTTP, first request of a dashboard   ${stats(cold)}`);
  console.log(`    later requests, one new call booked before each (${WARM_RUNS})  ${stats(warm)}`);
  console.log(`(b) satchel usage --json (open, query, print, close)       ${stats(await cli())}`);
  console.log(`(c) quota gate: today's global + pack sums, before a call   ${stats(quotaSums())}`);

  started = performance.now();
  store.sqlite.exec(
    'DROP INDEX usage_events_rollup; DROP INDEX usage_events_turn; CREATE INDEX usage_events_day ON usage_events (day);',
  );
  const bare = await coldRequests();
  console.log(`(d) first request with only the old index on day            ${stats(bare)}`);
  console.log(`    quota gate sums with only the old index on day          ${stats(quotaSums())}`);
  console.log(`\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    store.close();
    rmSync(home, { recursive: true, force: true });
  });
