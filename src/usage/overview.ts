import {
  addSums,
  type TurnUsage,
  type UsageAggregates,
  type UsageGroup,
  type UsageSums,
  zeroSums,
} from './aggregates.ts';
import type { Calendar } from './calendar.ts';
import type { ModelCatalog } from './catalog.ts';
import { DEFAULT_DAYS, MAX_DAYS } from './days.ts';
import type { JobUsage } from './job-usage.ts';
import type { PersonUsage } from './person-usage.ts';
import { cacheSaving } from './prices.ts';
import type { Caps } from './quota.ts';

const RECENT_TURNS = 20;

/**
 * A period's sums and what the provider's prompt cache saved in it: the cached input tokens
 * at the input price less at the cached price, at the catalog's prices of today.
 */
export type PeriodUsage = UsageSums & { cache_saved_usd: number };
export type DayUsage = UsageSums & { day: string; pack: string | null };
export type ModelUsage = PeriodUsage & { provider: string; model: string };
export type PackUsage = PeriodUsage & { pack: string | null };
export type KindUsage = UsageSums & {
  kind: UsageGroup['kind'];
  audio_seconds: number;
  images: number;
};

/**
 * The JSON of `GET /api/usage` and `satchel usage --json` (SPEC §7; the field names are a
 * contract). Amounts are USD; a `cost_usd` is null when no call it covers had a known price.
 */
export interface UsageOverview {
  timezone: string;
  /** Today's calendar day in `timezone`. */
  as_of_day: string;
  /** How many days (today included) the `by_*` lists cover. */
  days: number;
  today: PeriodUsage;
  last_7_days: PeriodUsage;
  last_30_days: PeriodUsage;
  caps: {
    daily_tokens: number;
    session_tokens: number;
    daily_usd: number;
    used_today: { tokens: number; cost_usd: number | null };
    /** What is left of each daily cap today; null where there is no cap (0). */
    left_today: { tokens: number | null; usd: number | null };
  };
  by_day: DayUsage[];
  by_model: ModelUsage[];
  by_pack: PackUsage[];
  by_kind: KindUsage[];
  /** What each job's runs cost in the last 30 days, most spend first. */
  by_job: JobUsage[];
  /** What each person's turns cost (SPEC §19): today and the last 30 days, most spend first. */
  by_person: { today: PersonUsage[]; last_30_days: PersonUsage[] };
  recent_turns: TurnUsage[];
  unknown_price_models: { provider: string; model: string; calls: number; tokens: number }[];
}

/** `day` (YYYY-MM-DD) moved by `n` calendar days. */
export function shiftDay(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** Builds the overview from the ledger's aggregates: one grouped query and one for turns. */
export function usageOverview(input: {
  aggregates: UsageAggregates;
  calendar: Calendar;
  caps: Caps;
  /** Prices the cache savings. */
  catalog: ModelCatalog;
  now: number;
  days?: number;
}): UsageOverview {
  const { calendar, caps } = input;
  const days = Math.min(MAX_DAYS, Math.max(1, Math.floor(input.days ?? DEFAULT_DAYS)));
  const today = calendar.dayOf(input.now);
  const from = {
    7: shiftDay(today, -6),
    30: shiftDay(today, -29),
    window: shiftDay(today, 1 - days),
  };
  const groups = input.aggregates.groups(from.window < from[30] ? from.window : from[30], today);

  const periods = { today: saved(), last_7_days: saved(), last_30_days: saved() };
  const byDay = new Keyed<DayUsage>();
  const byModel = new Keyed<ModelUsage>();
  const byPack = new Keyed<PackUsage>();
  const byKind = new Keyed<KindUsage>();
  for (const kind of ['llm', 'stt', 'vision'] as const)
    byKind.get(kind, () => ({ kind, ...sums(), audio_seconds: 0, images: 0 }));
  for (const g of groups) {
    const cacheSaved = cacheSaving(
      input.catalog.lookup(g.provider, g.model),
      g.cached_input_tokens,
    );
    const inPeriods = [
      g.day === today && periods.today,
      g.day >= from[7] && periods.last_7_days,
      g.day >= from[30] && periods.last_30_days,
    ];
    for (const period of inPeriods)
      if (period) {
        addSums(period, g);
        period.cache_saved_usd += cacheSaved;
      }
    if (g.day < from.window) continue;
    addSums(
      byDay.get(`${g.day}\n${g.pack}`, () => ({ day: g.day, pack: g.pack, ...sums() })),
      g,
    );
    const model = byModel.get(`${g.provider}:${g.model}`, () => ({
      provider: g.provider,
      model: g.model,
      ...saved(),
    }));
    addSums(model, g);
    model.cache_saved_usd += cacheSaved;
    const pack = byPack.get(String(g.pack), () => ({ pack: g.pack, ...saved() }));
    addSums(pack, g);
    pack.cache_saved_usd += cacheSaved;
    const kind = byKind.get(g.kind, () => ({
      kind: g.kind,
      ...sums(),
      audio_seconds: 0,
      images: 0,
    }));
    addSums(kind, g);
    kind.audio_seconds += g.audio_seconds;
    kind.images += g.images;
  }

  const used = periods.today;
  const byModelList = sortBySpend(byModel.values(), (m) => `${m.provider}:${m.model}`);
  return {
    timezone: calendar.timezone,
    as_of_day: today,
    days,
    today: roundedSaving(periods.today),
    last_7_days: roundedSaving(periods.last_7_days),
    last_30_days: roundedSaving(periods.last_30_days),
    caps: {
      daily_tokens: caps.dailyTokens,
      session_tokens: caps.sessionTokens,
      daily_usd: caps.dailyUsd,
      used_today: { tokens: used.tokens, cost_usd: money(used.cost_usd) },
      left_today: {
        tokens: caps.dailyTokens > 0 ? Math.max(0, caps.dailyTokens - used.tokens) : null,
        usd: caps.dailyUsd > 0 ? money(Math.max(0, caps.dailyUsd - (used.cost_usd ?? 0))) : null,
      },
    },
    by_day: byDay
      .values()
      .sort((a, b) => a.day.localeCompare(b.day) || String(a.pack).localeCompare(String(b.pack)))
      .map(rounded),
    by_model: byModelList.map(roundedSaving),
    by_pack: sortBySpend(byPack.values(), (p) => String(p.pack)).map(roundedSaving),
    by_kind: byKind.values().map(rounded),
    by_job: input.aggregates.byJob(from[30]).map(rounded),
    by_person: {
      today: input.aggregates.byPerson(today).map(rounded),
      last_30_days: input.aggregates.byPerson(from[30]).map(rounded),
    },
    recent_turns: input.aggregates.recentTurns(RECENT_TURNS).map(rounded),
    unknown_price_models: byModelList
      .filter((m) => m.unknown_price_calls > 0)
      .map((m) => ({
        provider: m.provider,
        model: m.model,
        calls: m.unknown_price_calls,
        tokens: m.tokens,
      })),
  };
}

const sums = zeroSums;
const saved = (): PeriodUsage => ({ ...zeroSums(), cache_saved_usd: 0 });

/** Float sums drift (0.1 + 0.2); a nano-dollar is far below anything shown. */
const money = (usd: number | null) => (usd === null ? null : Math.round(usd * 1e9) / 1e9);
const rounded = <T extends { cost_usd: number | null }>(row: T): T => ({
  ...row,
  cost_usd: money(row.cost_usd),
});

const roundedSaving = <T extends PeriodUsage>(row: T): T => ({
  ...rounded(row),
  cache_saved_usd: money(row.cache_saved_usd) ?? 0,
});

/** Most spend first, then most tokens, then by name, so equal rows keep a stable order. */
function sortBySpend<T extends UsageSums>(rows: T[], name: (row: T) => string): T[] {
  return rows.sort(
    (a, b) =>
      (b.cost_usd ?? 0) - (a.cost_usd ?? 0) ||
      b.tokens - a.tokens ||
      name(a).localeCompare(name(b)),
  );
}

/** Rows by key, in the order they were first seen. */
class Keyed<T> {
  private readonly rows = new Map<string, T>();

  get(key: string, create: () => T): T {
    let row = this.rows.get(key);
    if (row === undefined) {
      row = create();
      this.rows.set(key, row);
    }
    return row;
  }

  values(): T[] {
    return [...this.rows.values()];
  }
}
