import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '../../src/core/clock.ts';
import type { Logger } from '../../src/core/ports.ts';
import { createDashboard, type Dashboard } from '../../src/dashboard/server.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { type CoreReader, openCoreReader } from '../../src/store/read-only.ts';
import { sessions } from '../../src/store/schema.ts';
import { createCalendar } from '../../src/usage/calendar.ts';
import { createLedger, type PaidCall, type UsageKind } from '../../src/usage/ledger.ts';
import { testCatalog } from './catalog.ts';
import { FakeClock } from './fake-clock.ts';

/** "Now" of every seeded ledger: 2026-11-22 13:00 in Europe/Berlin. */
export const SEED_NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
export const SEED_TIMEZONE = 'Europe/Berlin';
export const SEED_CAPS = { dailyTokens: 200_000, sessionTokens: 50_000, dailyUsd: 0.5 };
export const UNKNOWN_MODEL = 'mystery-model-7';

export const silentLog: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLog,
};

/** A fresh SATCHEL_HOME with a migrated core database; `close` removes it. */
export function tempCoreStore(): { home: string; store: CoreStore; close(): void } {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-usage-'));
  const store = openCoreStore(home);
  return {
    home,
    store,
    close() {
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A fresh core store holding SEED_CALLS; `clock` stands at SEED_NOW. */
export function seededCoreStore(): ReturnType<typeof tempCoreStore> & { clock: FakeClock } {
  const env = tempCoreStore();
  return { ...env, clock: seedLedger(env.store) };
}

/**
 * A dashboard (not started) reading `home` through its own read-only connection, with the
 * seed's caps and timezone and the test catalog; close `reader` after stopping it.
 */
export function seedDashboard(
  home: string,
  clock: Clock,
  token: string,
): { dashboard: Dashboard; reader: CoreReader } {
  const reader = openCoreReader(home)!;
  const dashboard = createDashboard({
    db: reader.db,
    catalog: testCatalog(),
    config: { port: 0, token, caps: SEED_CAPS, timezone: SEED_TIMEZONE },
    clock,
    log: silentLog,
  });
  return { dashboard, reader };
}

interface Call {
  /** Minutes before SEED_NOW the call ended. */
  ago: number;
  kind?: UsageKind;
  provider?: string;
  model?: string;
  pack: string | null;
  turn: string;
  session?: string;
  /** The job whose run made the call. */
  job?: string;
  /** The person the call was for (`people.id`); none by default. */
  person?: string;
  input?: number;
  cached?: number;
  output?: number;
  audioSeconds?: number;
  images?: number;
  latencyMs?: number;
}

const DAY = 24 * 60;

/** Calls at the edges: local midnight, 7 and 30 days, unknown prices, media, a job. */
const EDGE_CALLS: readonly Call[] = [
  // Today (2026-11-22 in Berlin).
  {
    ago: 10,
    pack: 'vocab',
    turn: 'turn-today-1',
    person: 'owner',
    input: 12000,
    cached: 2000,
    output: 3000,
  },
  {
    ago: 9.95,
    pack: 'vocab',
    turn: 'turn-today-1',
    person: 'owner',
    input: 18000,
    output: 1500,
    latencyMs: 900,
  },
  {
    ago: 40,
    pack: 'journal',
    turn: 'turn-today-2',
    model: UNKNOWN_MODEL,
    input: 9000,
    output: 800,
  },
  {
    ago: 60,
    pack: 'journal',
    turn: 'turn-today-3',
    kind: 'stt',
    provider: 'groq',
    model: 'whisper-large-v3-turbo',
    audioSeconds: 42,
  },
  {
    ago: 59.9,
    pack: 'journal',
    turn: 'turn-today-3',
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    input: 25000,
    output: 4000,
  },
  {
    ago: 125,
    pack: 'habits',
    turn: 'turn-job-1',
    session: 'session-job',
    job: 'check01',
    input: 7000,
    output: 1200,
  },
  // 00:30 today in Berlin is 23:30 yesterday in UTC: still today here.
  { ago: 12 * 60 + 30, pack: 'vocab', turn: 'turn-after-midnight', input: 5000, output: 500 },
  // 23:30 yesterday in Berlin.
  { ago: 13 * 60 + 30, pack: 'vocab', turn: 'turn-before-midnight', input: 6000, output: 600 },
  {
    ago: DAY + 30,
    pack: 'habits',
    turn: 'turn-vision',
    kind: 'vision',
    model: 'gpt-4.1',
    input: 15000,
    output: 2000,
    images: 2,
  },
  { ago: 3 * DAY, pack: 'journal', turn: 'turn-3d', model: 'gpt-4.1', input: 40000, output: 9000 },
  { ago: 3 * DAY + 5, pack: 'vocab', turn: 'turn-3d-b', input: 30000, output: 4000 },
  { ago: 5 * DAY, pack: 'habits', turn: 'turn-5d', model: UNKNOWN_MODEL, input: 3000, output: 300 },
  { ago: 6 * DAY, pack: 'vocab', turn: 'turn-6d', input: 22000, output: 3100 },
  // Seven and more days ago: in the last 30 days, not the last 7.
  { ago: 7 * DAY, pack: 'journal', turn: 'turn-7d', input: 50000, output: 7000 },
  { ago: 12 * DAY, pack: 'vocab', turn: 'turn-12d', model: 'gpt-4.1', input: 60000, output: 8000 },
  { ago: 20 * DAY, pack: null, turn: 'turn-20d', input: 10000, output: 1000 },
  { ago: 29 * DAY, pack: 'habits', turn: 'turn-29d', input: 8000, output: 900 },
  // Older than 30 days: in no period.
  { ago: 31 * DAY, pack: 'vocab', turn: 'turn-31d', input: 90000, output: 9000 },
];

const PACKS = ['vocab', 'journal', 'habits'] as const;
const MODELS = ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4.1-mini'] as const;

/** A call or none per pack on each of the last 29 days, at 11:00 local, sizes varying. */
const DAILY_CALLS: readonly Call[] = Array.from({ length: 29 }, (_, i) => i + 1).flatMap((d) =>
  PACKS.flatMap((pack, p) => {
    if ((d * 7 + p * 3) % 5 === 0) return [];
    const input = 20_000 + ((d * 37 + p * 101) % 50) * 2_000;
    return [
      {
        ago: d * DAY + 120 + p * 10,
        pack,
        turn: `turn-daily-${d}-${pack}`,
        model: MODELS[p]!,
        input,
        output: Math.round(input / 8),
      },
    ];
  }),
);

/**
 * A fixed month of ledger rows: three packs, priced chat, vision and speech-to-text models,
 * a model with no price, a scheduled job's turn, calls on both sides of local midnight and
 * of the 7- and 30-day edges, and a call most days for each pack.
 */
export const SEED_CALLS: readonly Call[] = [...EDGE_CALLS, ...DAILY_CALLS];

/** Books SEED_CALLS through the real ledger (and the job's session) into `store`. */
export function seedLedger(store: CoreStore, calls: readonly Call[] = SEED_CALLS): FakeClock {
  const clock = new FakeClock(SEED_NOW - 40 * DAY * 60_000);
  const ledger = createLedger({
    db: store.db,
    clock,
    calendar: createCalendar(SEED_TIMEZONE),
    catalog: testCatalog(),
  });
  store.db
    .insert(sessions)
    .values({
      id: 'session-job',
      key: 'job:habits:check',
      pack: 'habits',
      address: 'tg:111',
      kind: 'job',
      createdAt: SEED_NOW - 40 * DAY * 60_000,
    })
    .onConflictDoNothing()
    .run();
  const ordered = [...calls].sort((a, b) => b.ago - a.ago);
  for (const call of ordered) {
    clock.advance(SEED_NOW - call.ago * 60_000 - clock.now());
    ledger.record(paidCall(call));
  }
  clock.advance(SEED_NOW - clock.now());
  return clock;
}

function paidCall(call: Call): PaidCall {
  return {
    kind: call.kind ?? 'llm',
    provider: call.provider ?? 'openai',
    model: call.model ?? 'gpt-4.1-mini',
    scope: {
      pack: call.pack,
      chatId: '111',
      threadId: null,
      sessionId: call.session ?? `session-${call.pack}`,
      turnId: call.turn,
      jobId: call.job ?? null,
      ...(call.person === undefined ? {} : { person: call.person, channel: 'tg' }),
    },
    inputTokens: call.input ?? 0,
    cachedInputTokens: call.cached ?? 0,
    outputTokens: call.output ?? 0,
    audioSeconds: call.audioSeconds ?? 0,
    images: call.images ?? 0,
    latencyMs: call.latencyMs ?? 1500,
    ok: true,
  };
}
