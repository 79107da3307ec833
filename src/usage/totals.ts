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
    day: (day: string) => sum(and(eq(usageEvents.day, day))),
    packDay: (pack: string, day: string) =>
      sum(and(eq(usageEvents.day, day), eq(usageEvents.pack, pack))),
    session: (sessionId: string) => sum(and(eq(usageEvents.sessionId, sessionId))),
  };
}

export type UsageTotals = ReturnType<typeof createTotals>;
