import { and, eq, sql } from 'drizzle-orm';
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
 * dashboard (`sums.ts`), so every view counts a call the same way.
 */
export function createTotals(db: Db) {
  const gate = prepareGateSums(db);
  return {
    /** Today's speech-to-text and vision calls: how many, how much audio, how many images. */
    media(day: string): { transcriptions: number; audioSeconds: number; visionImages: number } {
      const row = db
        .select({
          transcriptions: sql<number>`coalesce(sum(case when ${usageEvents.kind} = 'stt' then 1 else 0 end), 0)`,
          audioSeconds: sql<number>`coalesce(sum(${usageEvents.audioSeconds}), 0)`,
          visionImages: sql<number>`coalesce(sum(case when ${usageEvents.kind} = 'vision' then ${usageEvents.images} else 0 end), 0)`,
        })
        .from(usageEvents)
        .where(and(eq(usageEvents.day, day), sql`${usageEvents.kind} != 'llm'`))
        .get();
      return row ?? { transcriptions: 0, audioSeconds: 0, visionImages: 0 };
    },
    day: (day: string) => totalsOf(gate.day.get({ day })),
    packDay: (pack: string, day: string) => totalsOf(gate.packDay.get({ pack, day })),
    session: (sessionId: string) => totalsOf(gate.session.get({ sessionId })),
  };
}

/** A sums row as Totals (an aggregate always has its row; none would count as nothing). */
function totalsOf(row: Omit<UsageSums, 'tokens'> | undefined): Totals {
  const sums = row ? withTokens(row) : zeroSums();
  return {
    tokens: sums.tokens,
    // A cap compares what was priced; unpriced calls are counted apart, never as $0.
    costUsd: sums.cost_usd ?? 0,
    calls: sums.calls,
    unpriced: sums.unknown_price_calls,
  };
}

/**
 * The quota gate's three sums (`sumColumns`, as every view counts), prepared once: the gate
 * runs them before every paid call, and building them anew cost more than the sums.
 */
function prepareGateSums(db: Db) {
  const p = sql.placeholder;
  const select = () => db.select(sumColumns).from(usageEvents);
  return {
    day: select()
      .where(eq(usageEvents.day, p('day')))
      .prepare(),
    packDay: select()
      .where(and(eq(usageEvents.day, p('day')), eq(usageEvents.pack, p('pack'))))
      .prepare(),
    session: select()
      .where(eq(usageEvents.sessionId, p('sessionId')))
      .prepare(),
  };
}

export type UsageTotals = ReturnType<typeof createTotals>;
