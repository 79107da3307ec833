import { and, gt, gte, lte, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../store/client.ts';
import { usageEvents as u } from '../store/schema.ts';
import { addSums, sumColumns, type UsageSums, withTokens } from './sums.ts';

/** One group of the ledger: the calls of one day, pack, model and kind. */
export interface UsageGroup extends UsageSums {
  day: string;
  pack: string | null;
  provider: string;
  model: string;
  kind: 'llm' | 'stt' | 'vision' | 'search' | 'tts';
  audio_seconds: number;
  images: number;
}

/** The ledger rows that match `where`, grouped (one pass over the covering index). */
function queryGroups(db: Db, where: SQL | undefined): UsageGroup[] {
  return db
    .select({
      day: u.day,
      pack: u.pack,
      provider: u.provider,
      model: u.model,
      kind: u.kind,
      ...sumColumns,
      audio_seconds: sql<number>`coalesce(sum(${u.audioSeconds}), 0)`,
      images: sql<number>`coalesce(sum(${u.images}), 0)`,
    })
    .from(u)
    .where(where)
    .groupBy(u.day, u.pack, u.provider, u.model, u.kind)
    .all()
    .map(withTokens);
}

const keyOf = (g: UsageGroup) => [g.day, g.pack, g.provider, g.model, g.kind].join('\n');

/**
 * The ledger grouped by day, pack, model and kind, kept up to date incrementally: the ledger
 * is append-only, so after the first query only rows with a higher id than the last one seen
 * are read (a rowid range). A first query for a month of 100,000 rows takes tens of
 * milliseconds; a refresh then costs about as much as the rows booked since.
 *
 * If the ledger shrank (a restored backup), everything is read again.
 */
export function createGroupCache(db: Db) {
  const groups = new Map<string, UsageGroup>();
  /** The cache holds every row with `day >= from` and `id <= seen`. */
  let from: string | undefined;
  let seen = 0;

  function merge(rows: UsageGroup[]): void {
    for (const row of rows) {
      const key = keyOf(row);
      const cached = groups.get(key);
      if (!cached) {
        groups.set(key, { ...row });
        continue;
      }
      addSums(cached, row);
      cached.audio_seconds += row.audio_seconds;
      cached.images += row.images;
    }
  }

  /** The groups of the days from `fromDay` to `toDay` (inclusive). */
  return (fromDay: string, toDay: string): UsageGroup[] =>
    db.transaction(() => {
      const last =
        db
          .select({ id: sql<number | null>`max(${u.id})` })
          .from(u)
          .get()?.id ?? 0;
      if (from === undefined || fromDay < from || last < seen) {
        groups.clear();
        from = fromDay;
        merge(queryGroups(db, and(gte(u.day, fromDay), lte(u.id, last))));
      } else if (last > seen) {
        merge(queryGroups(db, and(gt(u.id, seen), lte(u.id, last), gte(u.day, from))));
      }
      seen = last;
      if (fromDay > from) {
        for (const [key, group] of groups) if (group.day < fromDay) groups.delete(key);
        from = fromDay;
      }
      return [...groups.values()].filter((g) => g.day <= toDay).map((g) => ({ ...g }));
    });
}
