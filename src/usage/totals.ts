import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../store/client.ts';
import { usageEvents } from '../store/schema.ts';

export interface Totals {
  tokens: number;
  costUsd: number;
  calls: number;
  /** Calls whose model had no known price (their cost is not in costUsd). */
  unpriced: number;
}

/** Sums of the ledger, for the quota gate, /usage and the dashboard. */
export function createTotals(db: Db) {
  const sum = (where: ReturnType<typeof and>): Totals => {
    const row = db
      .select({
        tokens: sql<number>`coalesce(sum(${usageEvents.inputTokens} + ${usageEvents.outputTokens}), 0)`,
        costUsd: sql<number>`coalesce(sum(${usageEvents.costUsd}), 0)`,
        calls: sql<number>`count(*)`,
        unpriced: sql<number>`coalesce(sum(case when ${usageEvents.priceKnown} then 0 else 1 end), 0)`,
      })
      .from(usageEvents)
      .where(where)
      .get();
    return row ?? { tokens: 0, costUsd: 0, calls: 0, unpriced: 0 };
  };
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
    day: (day: string) => sum(and(eq(usageEvents.day, day))),
    packDay: (pack: string, day: string) =>
      sum(and(eq(usageEvents.day, day), eq(usageEvents.pack, pack))),
    session: (sessionId: string) => sum(and(eq(usageEvents.sessionId, sessionId))),
  };
}

export type UsageTotals = ReturnType<typeof createTotals>;
