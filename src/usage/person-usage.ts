import { and, gte, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../store/client.ts';
import { people, usageEvents as u } from '../store/schema.ts';
import { addSums, sumColumns, type UsageSums, withTokens, zeroSums } from './sums.ts';

/** What one person's turns cost (`by_person` in /api/usage, SPEC §7, §19). */
export interface PersonUsage {
  person: string;
  name: string;
  calls: number;
  tokens: number;
  cost_usd: number | null;
}

/** Each person's use from `fromDay` on (inclusive), most spend first; the owner is `owner`. */
export function personUsage(db: Db, fromDay: string): PersonUsage[] {
  return db
    .select({
      person: sql<string>`${u.person}`,
      name: sql<string>`coalesce(max(${people.name}), ${u.person})`,
      ...sumColumns,
    })
    .from(u)
    .leftJoin(people, sql`${people.id} = ${u.person}`)
    .where(and(isNotNull(u.person), gte(u.day, fromDay)))
    .groupBy(u.person)
    .all()
    .map((row) => {
      const sums = withTokens(row);
      return {
        person: row.person,
        name: row.name,
        calls: sums.calls,
        tokens: sums.tokens,
        cost_usd: sums.cost_usd,
      };
    })
    .sort((a, b) => (b.cost_usd ?? 0) - (a.cost_usd ?? 0) || b.tokens - a.tokens);
}

/** What each person cost today (`day`) and in all, for `/people`. */
export function personCosts(
  db: Db,
  day: string,
): Map<string, { today: UsageSums; all: UsageSums }> {
  const costs = new Map<string, { today: UsageSums; all: UsageSums }>();
  const rows = db
    .select({
      person: sql<string>`${u.person}`,
      today: sql<number>`${u.day} = ${day}`,
      ...sumColumns,
    })
    .from(u)
    .where(isNotNull(u.person))
    .groupBy(u.person, sql`${u.day} = ${day}`)
    .all();
  for (const { person, today, ...sums } of rows) {
    const cost = costs.get(person) ?? { today: zeroSums(), all: zeroSums() };
    costs.set(person, cost);
    const row = withTokens(sums);
    addSums(cost.all, row);
    if (today) addSums(cost.today, row);
  }
  return costs;
}
