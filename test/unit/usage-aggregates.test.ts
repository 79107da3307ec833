import { afterEach, describe, expect, it } from 'vitest';
import { createUsageAggregates, type UsageSums } from '../../src/usage/aggregates.ts';
import { createCalendar } from '../../src/usage/calendar.ts';
import { createLedger } from '../../src/usage/ledger.ts';
import { shiftDay, type UsageOverview, usageOverview } from '../../src/usage/overview.ts';
import { usageReport } from '../../src/usage/report.ts';
import { createTotals } from '../../src/usage/totals.ts';
import { testCatalog } from '../support/catalog.ts';
import {
  SEED_CAPS,
  SEED_NOW,
  SEED_TIMEZONE,
  seedLedger,
  tempCoreStore,
  UNKNOWN_MODEL,
} from '../support/usage-seed.ts';

interface Row {
  id: number;
  ts: number;
  day: string;
  kind: string;
  provider: string;
  model: string;
  pack: string | null;
  turn_id: string;
  session_id: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  price_known: number;
  latency_ms: number;
}

const TODAY = '2026-11-22';
const calendar = createCalendar(SEED_TIMEZONE);
let env: ReturnType<typeof tempCoreStore>;
afterEach(() => env?.close());

function seeded() {
  env = tempCoreStore();
  const clock = seedLedger(env.store);
  const rows = env.store.sqlite.prepare('SELECT * FROM usage_events ORDER BY id').all() as Row[];
  const aggregates = createUsageAggregates(env.store.db);
  const overview = (days?: number) =>
    usageOverview({
      aggregates,
      calendar,
      caps: SEED_CAPS,
      catalog: testCatalog(),
      now: clock.now(),
      days,
    });
  return { clock, rows, aggregates, overview };
}

/** What the sums of `rows` must be, straight from the ledger rows. */
function sumsOf(rows: Row[]): UsageSums {
  const priced = rows.filter((r) => r.price_known);
  const input = rows.reduce((n, r) => n + r.input_tokens, 0);
  const cached = rows.reduce((n, r) => n + r.cached_input_tokens, 0);
  const output = rows.reduce((n, r) => n + r.output_tokens, 0);
  return {
    calls: rows.length,
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    tokens: input + output,
    cost_usd: priced.length ? priced.reduce((n, r) => n + r.cost_usd!, 0) : null,
    unknown_price_calls: rows.length - priced.length,
  };
}

function expectSums(actual: UsageSums, rows: Row[]): void {
  const expected = sumsOf(rows);
  const { calls, input_tokens, cached_input_tokens, output_tokens, tokens, unknown_price_calls } =
    actual;
  expect({
    calls,
    input_tokens,
    cached_input_tokens,
    output_tokens,
    tokens,
    unknown_price_calls,
  }).toEqual({
    ...expected,
    cost_usd: undefined,
  });
  if (expected.cost_usd === null) expect(actual.cost_usd).toBeNull();
  else expect(actual.cost_usd).toBeCloseTo(expected.cost_usd, 8);
}

describe('usage aggregates', () => {
  it('sums today, 7 and 30 days exactly as the ledger rows of those local days', () => {
    const { rows, overview } = seeded();
    const o = overview();
    expect(o.as_of_day).toBe(TODAY);
    expect(o.timezone).toBe(SEED_TIMEZONE);
    expectSums(
      o.today,
      rows.filter((r) => r.day === TODAY),
    );
    expectSums(
      o.last_7_days,
      rows.filter((r) => r.day >= '2026-11-16'),
    );
    expectSums(
      o.last_30_days,
      rows.filter((r) => r.day >= '2026-10-24'),
    );
    expect(o.today.calls).toBe(7);
    expect(o.today.unknown_price_calls).toBe(1);
    expect(o.last_7_days.unknown_price_calls).toBe(2);
  });

  it('cuts days in SATCHEL_TIMEZONE, not in UTC', () => {
    const { rows, overview } = seeded();
    const after = rows.find((r) => r.turn_id === 'turn-after-midnight')!;
    const before = rows.find((r) => r.turn_id === 'turn-before-midnight')!;
    // 00:30 in Berlin is 23:30 the day before in UTC.
    expect(new Date(after.ts).toISOString().slice(0, 10)).toBe('2026-11-21');
    expect(after.day).toBe(TODAY);
    expect(before.day).toBe('2026-11-21');
    const o = overview();
    const todayRows = rows.filter((r) => r.day === TODAY);
    expect(todayRows.map((r) => r.turn_id)).toContain('turn-after-midnight');
    expect(todayRows.map((r) => r.turn_id)).not.toContain('turn-before-midnight');
    expect(o.by_day.filter((d) => d.day === TODAY).reduce((n, d) => n + d.calls, 0)).toBe(7);
  });

  it('breaks the window down by day and pack, model, pack and kind, each adding up', () => {
    const { rows, overview } = seeded();
    const o = overview();
    const month = rows.filter((r) => r.day >= '2026-10-24');
    for (const list of [o.by_day, o.by_model, o.by_pack, o.by_kind]) {
      expect(list.reduce((n, r) => n + r.calls, 0)).toBe(o.last_30_days.calls);
      expect(list.reduce((n, r) => n + r.tokens, 0)).toBe(o.last_30_days.tokens);
      expect(list.reduce((n, r) => n + (r.cost_usd ?? 0), 0)).toBeCloseTo(
        o.last_30_days.cost_usd!,
        8,
      );
    }
    const journal = o.by_day.find((d) => d.day === TODAY && d.pack === 'journal')!;
    expectSums(
      journal,
      month.filter((r) => r.day === TODAY && r.pack === 'journal'),
    );
    expect(o.by_pack.map((p) => p.pack)).toEqual(expect.arrayContaining([null, 'vocab']));
    expectSums(
      o.by_pack.find((p) => p.pack === null)!,
      month.filter((r) => r.pack === null),
    );
    const mystery = o.by_model.find((m) => m.model === UNKNOWN_MODEL)!;
    expect(mystery.cost_usd).toBeNull();
    expectSums(
      mystery,
      month.filter((r) => r.model === UNKNOWN_MODEL),
    );
    expect(o.by_kind.map((k) => k.kind)).toEqual(['llm', 'stt', 'vision']);
    expect(o.by_kind.find((k) => k.kind === 'stt')).toMatchObject({ calls: 1, audio_seconds: 42 });
    expect(o.by_kind.find((k) => k.kind === 'vision')).toMatchObject({ calls: 1, images: 2 });
    expect(o.unknown_price_models).toEqual([
      { provider: 'openai', model: UNKNOWN_MODEL, calls: 2, tokens: mystery.tokens },
    ]);
  });

  it('lists the latest turns newest first, with their source, calls, cost and latency', () => {
    const { rows, overview } = seeded();
    const turns = overview().recent_turns;
    expect(turns).toHaveLength(20);
    const starts = turns.map((t) => t.started_at);
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    expect(turns[0]?.turn_id).toBe('turn-today-1');
    const first = rows.filter((r) => r.turn_id === 'turn-today-1');
    expect(turns[0]).toMatchObject({
      pack: 'vocab',
      chat: '111',
      calls: 2,
      tokens: sumsOf(first).tokens,
      source: 'chat',
      started_at: first[0]!.ts - first[0]!.latency_ms,
      latency_ms: first[1]!.ts - (first[0]!.ts - first[0]!.latency_ms),
    });
    expect(turns[0]?.cost_usd).toBeCloseTo(sumsOf(first).cost_usd!, 10);
    expect(turns.find((t) => t.turn_id === 'turn-job-1')?.source).toBe('schedule');
    expect(turns.filter((t) => t.source === 'schedule')).toHaveLength(1);
    expect(turns.find((t) => t.turn_id === 'turn-today-2')).toMatchObject({
      cost_usd: null,
      unknown_price_calls: 1,
    });
  });

  it('narrows only the by_* lists to --days, and reports caps with what is left', () => {
    const { overview } = seeded();
    const week = overview(7);
    const month = overview();
    expect(week.days).toBe(7);
    expect(week.by_day.every((d) => d.day >= shiftDay(TODAY, -6))).toBe(true);
    expect(week.by_model.reduce((n, m) => n + m.calls, 0)).toBe(week.last_7_days.calls);
    expect(week.last_30_days).toEqual(month.last_30_days);
    expect(month.caps).toEqual({
      daily_tokens: SEED_CAPS.dailyTokens,
      session_tokens: SEED_CAPS.sessionTokens,
      daily_usd: SEED_CAPS.dailyUsd,
      used_today: { tokens: month.today.tokens, cost_usd: month.today.cost_usd },
      left_today: {
        tokens: SEED_CAPS.dailyTokens - month.today.tokens,
        usd: expect.closeTo(SEED_CAPS.dailyUsd - month.today.cost_usd!, 8),
      },
    });
  });

  it('stays exact when calls are booked after the first query (incremental refresh)', () => {
    const { clock, aggregates, overview } = seeded();
    const before = overview();
    const ledger = createLedger({ db: env.store.db, clock, calendar, catalog: testCatalog() });
    for (const model of ['gpt-4.1', UNKNOWN_MODEL]) {
      clock.advance(60_000);
      ledger.record({
        kind: 'llm',
        provider: 'openai',
        model,
        scope: { pack: 'vocab', chatId: '5', threadId: null, sessionId: 's', turnId: 'late' },
        inputTokens: 1000,
        outputTokens: 100,
        latencyMs: 500,
        ok: true,
      });
    }
    const after = overview();
    expect(after.today.calls).toBe(before.today.calls + 2);
    expect(after.today.unknown_price_calls).toBe(before.today.unknown_price_calls + 1);
    const fresh = usageOverview({
      catalog: testCatalog(),
      aggregates: createUsageAggregates(env.store.db),
      calendar,
      caps: SEED_CAPS,
      now: clock.now(),
    });
    expect(after).toEqual(fresh);
    expect(overview(90)).toEqual(
      usageOverview({
        catalog: testCatalog(),
        aggregates: createUsageAggregates(env.store.db),
        calendar,
        caps: SEED_CAPS,
        now: clock.now(),
        days: 90,
      }),
    );
    expect(aggregates.recentTurns(1)[0]?.turn_id).toBe('late');
  });

  it("prices what the prompt cache saved at each model's input less its cached price", () => {
    const { rows, overview } = seeded();
    const o = overview();
    const catalog = testCatalog();
    const savedOn = (list: Row[]) =>
      list.reduce((n, r) => {
        const price = catalog.lookup(r.provider, r.model)?.tokens;
        return n + (price ? (r.cached_input_tokens * (price.input - price.cachedInput)) / 1e6 : 0);
      }, 0);
    const today = rows.filter((r) => r.day === TODAY);
    expect(today.some((r) => r.cached_input_tokens > 0)).toBe(true);
    expect(o.today.cached_input_tokens).toBe(today.reduce((n, r) => n + r.cached_input_tokens, 0));
    expect(o.today.cache_saved_usd).toBeCloseTo(savedOn(today), 9);
    for (const m of o.by_model) {
      const mine = rows.filter(
        (r) => r.provider === m.provider && r.model === m.model && r.day >= shiftDay(TODAY, -29),
      );
      expect(m.cache_saved_usd).toBeCloseTo(savedOn(mine), 9);
    }
  });

  it('gives the quota gate and /usage the same totals as the dashboard', () => {
    const { overview } = seeded();
    const o = overview();
    const today = createTotals(env.store.db).day(TODAY);
    expect(today).toEqual({
      tokens: o.today.tokens,
      costUsd: expect.closeTo(o.today.cost_usd!, 8),
      calls: o.today.calls,
      unpriced: o.today.unknown_price_calls,
    });
  });

  it('shows zeros and null costs on an empty ledger', () => {
    env = tempCoreStore();
    const o: UsageOverview = usageOverview({
      catalog: testCatalog(),
      aggregates: createUsageAggregates(env.store.db),
      calendar,
      caps: { dailyTokens: 0, sessionTokens: 0, dailyUsd: 0 },
      now: SEED_NOW,
    });
    const zero = {
      calls: 0,
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      tokens: 0,
      cost_usd: null,
    };
    expect(o.today).toEqual({ ...zero, unknown_price_calls: 0, cache_saved_usd: 0 });
    expect(o.caps.left_today).toEqual({ tokens: null, usd: null });
    expect(o.by_kind).toHaveLength(3);
    expect([o.by_day, o.by_model, o.by_pack, o.recent_turns, o.unknown_price_models]).toEqual([
      [],
      [],
      [],
      [],
      [],
    ]);
  });
});

describe('/usage', () => {
  it('says the spend is unknown when no call of the day had a price, never $0', () => {
    env = tempCoreStore();
    seedLedger(env.store, [
      { ago: 5, pack: 'vocab', turn: 't1', model: UNKNOWN_MODEL, input: 100, output: 10 },
    ]);
    const text = usageReport({
      totals: createTotals(env.store.db),
      calendar,
      caps: SEED_CAPS,
      now: SEED_NOW,
    });
    expect(text).toContain('• spend: unknown (1 call(s) with unknown price)');
    expect(text).not.toMatch(/spend: \$0\b/);
  });
});
