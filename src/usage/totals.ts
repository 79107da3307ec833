import { and, asc, eq, gt, lte, max, sql } from 'drizzle-orm';
import { createRecent } from '../core/recent.ts';
import type { Db } from '../store/client.ts';
import { usageEvents } from '../store/schema.ts';
import { sumColumns, type UsageSums, withTokens, zeroSums } from './sums.ts';

export interface Totals {
  tokens: number;
  costUsd: number;
  calls: number;
  /** Calls whose model had no known price (their cost is not in costUsd). */
  unpriced: number;
}

/**
 * Sums of the ledger for the quota gate and /usage, with the same sum columns as the
 * dashboard (`sums.ts`), so every view counts a call the same way. The day, pack-day and
 * session sums are running totals (see createRunningSums).
 */
export function createTotals(db: Db, options: { beforeRead?: () => void } = {}) {
  const gate = prepareGateSums(db);
  const running = createRunningSums(db, gate, options.beforeRead ?? (() => undefined));
  return {
    /** Rows still held to be written (the ledger's `recordSoon`) are written now. */
    settle: options.beforeRead ?? (() => undefined),
    /**
     * Runs `read`, whose sums are brought up to date with the ledger once, not once each
     * (the gate reads two to four of them before every call). `read` must not book a call.
     */
    together: <T>(read: () => T): T => running.together(read),
    /** Today's speech-to-text and vision calls: how many, how much audio, how many images. */
    media(day: string): { transcriptions: number; audioSeconds: number; visionImages: number } {
      options.beforeRead?.();
      const row = db
        .select({
          transcriptions: sql<number>`coalesce(sum(case when ${usageEvents.kind} = 'stt' then ${usageEvents.counted} else 0 end), 0)`,
          audioSeconds: sql<number>`coalesce(sum(${usageEvents.audioSeconds}), 0)`,
          visionImages: sql<number>`coalesce(sum(case when ${usageEvents.kind} = 'vision' then ${usageEvents.images} else 0 end), 0)`,
        })
        .from(usageEvents)
        .where(and(eq(usageEvents.day, day), sql`${usageEvents.kind} != 'llm'`))
        .get();
      return row ?? { transcriptions: 0, audioSeconds: 0, visionImages: 0 };
    },
    day: (day: string) => running.sum(`day ${day}`, (upto) => gate.day.get({ day, upto })),
    packDay: (pack: string, day: string) =>
      running.sum(`pack ${day} ${pack}`, (upto) => gate.packDay.get({ pack, day, upto })),
    session: (sessionId: string) =>
      running.sum(`session ${sessionId}`, (upto) => gate.session.get({ sessionId, upto })),
    /** A person's use on a calendar day (SPEC §19: their own caps). */
    personDay: (person: string, day: string) =>
      running.sum(`person ${day} ${person}`, (upto) => gate.personDay.get({ person, day, upto })),
  };
}

/** Sums kept at once, the most recently asked for. */
const KEPT_SUMS = 256;

type GateSums = ReturnType<typeof prepareGateSums>;
type SumsRow = Omit<UsageSums, 'tokens'>;

/**
 * Running totals for the gate, which asks before every paid call. A sum is read from the
 * ledger once (up to the last row seen), then brought up to date with the rows written
 * since, by this process or another (`satchel chat`), read by id: ledger rows are only
 * ever added, with ids that grow (AUTOINCREMENT: never reused). A day with many calls costs
 * what was added since the last call, not a sum over the day.
 */
function createRunningSums(db: Db, gate: GateSums, beforeRead: () => void) {
  let seen =
    db
      .select({ id: max(usageEvents.id) })
      .from(usageEvents)
      .get()?.id ?? 0;
  const kept = createRecent<string, SumsRow>(KEPT_SUMS);
  /** Inside `together`: the ledger was caught up with when it began. */
  let caughtUp = false;

  function catchUp(): void {
    for (const row of gate.since.all({ after: seen })) {
      for (const key of [
        `day ${row.day}`,
        `pack ${row.day} ${row.pack}`,
        `session ${row.sessionId}`,
        `person ${row.day} ${row.person}`,
      ]) {
        const sums = kept.peek(key);
        if (!sums) continue;
        if (row.counted) sums.calls += 1;
        sums.input_tokens += row.inputTokens;
        sums.cached_input_tokens += row.cachedInputTokens;
        sums.output_tokens += row.outputTokens;
        if (row.costUsd !== null) sums.cost_usd = (sums.cost_usd ?? 0) + row.costUsd;
        if (row.counted && !row.priceKnown) sums.unknown_price_calls += 1;
      }
      seen = row.id;
    }
  }

  return {
    sum(key: string, load: (upto: number) => SumsRow | undefined): Totals {
      if (!caughtUp) {
        beforeRead();
        catchUp();
      }
      let sums = kept.get(key);
      if (!sums) {
        sums = { ...(load(seen) ?? zeroSums()) };
        kept.set(key, sums);
      }
      return totalsOf(sums);
    },

    together<T>(read: () => T): T {
      if (caughtUp) return read();
      beforeRead();
      catchUp();
      caughtUp = true;
      try {
        return read();
      } finally {
        caughtUp = false;
      }
    },
  };
}

/** A sums row as Totals (an aggregate always has its row; none would count as nothing). */
function totalsOf(row: SumsRow): Totals {
  const sums = withTokens(row);
  return {
    tokens: sums.tokens,
    // A cap compares what was priced; unpriced calls are counted apart, never as $0.
    costUsd: sums.cost_usd ?? 0,
    calls: sums.calls,
    unpriced: sums.unknown_price_calls,
  };
}

/**
 * The quota gate's sums (day, pack-day, session, person-day) (`sumColumns`, as every view counts) up to a row id, and the
 * rows after an id, prepared once.
 */
function prepareGateSums(db: Db) {
  const p = sql.placeholder;
  const select = () => db.select(sumColumns).from(usageEvents);
  const upto = lte(usageEvents.id, p('upto'));
  return {
    day: select()
      .where(and(eq(usageEvents.day, p('day')), upto))
      .prepare(),
    packDay: select()
      .where(and(eq(usageEvents.day, p('day')), eq(usageEvents.pack, p('pack')), upto))
      .prepare(),
    session: select()
      .where(and(eq(usageEvents.sessionId, p('sessionId')), upto))
      .prepare(),
    personDay: select()
      .where(and(eq(usageEvents.person, p('person')), eq(usageEvents.day, p('day')), upto))
      .prepare(),
    since: db
      .select({
        id: usageEvents.id,
        day: usageEvents.day,
        pack: usageEvents.pack,
        sessionId: usageEvents.sessionId,
        person: usageEvents.person,
        inputTokens: usageEvents.inputTokens,
        cachedInputTokens: usageEvents.cachedInputTokens,
        outputTokens: usageEvents.outputTokens,
        costUsd: usageEvents.costUsd,
        priceKnown: usageEvents.priceKnown,
        counted: usageEvents.counted,
      })
      .from(usageEvents)
      .where(gt(usageEvents.id, p('after')))
      .orderBy(asc(usageEvents.id))
      .prepare(),
  };
}

export type UsageTotals = ReturnType<typeof createTotals>;
