import { and, eq, gte, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../store/client.ts';
import { jobs, usageEvents as u, webConversations } from '../store/schema.ts';
import { addSums, sumColumns, type UsageSums, withTokens, zeroSums } from './sums.ts';

/**
 * What one job's runs cost (`by_job` in /api/usage): its paid calls since a day, booked to
 * it by `usage_events.job_id`. `runs` counts the runs that made a paid call (one turn each).
 * `schedule` is the job's, or null once the job is gone (a one-shot that ran).
 */
export interface JobUsage extends UsageSums {
  job_id: string;
  pack: string | null;
  chat: string | null;
  topic: string | null;
  schedule: string | null;
  runs: number;
}

/** The jobs' usage from `fromDay` on (inclusive), most spend first. */
export function jobUsage(db: Db, fromDay: string): JobUsage[] {
  const rows = db
    .select({
      job_id: sql<string>`${u.jobId}`,
      pack: sql<string | null>`max(${u.pack})`,
      // A web conversation by its title (SPEC §16); any other chat by its id.
      chat: sql<string | null>`coalesce(max(${webConversations.title}), max(${u.chatId}))`,
      topic: sql<string | null>`max(${u.threadId})`,
      schedule: sql<string | null>`max(${jobs.schedule})`,
      runs: sql<number>`count(distinct ${u.turnId})`,
      ...sumColumns,
    })
    .from(u)
    .leftJoin(jobs, eq(jobs.id, u.jobId))
    .leftJoin(webConversations, eq(webConversations.id, u.chatId))
    .where(and(isNotNull(u.jobId), gte(u.day, fromDay)))
    .groupBy(u.jobId)
    .all()
    .map(withTokens);
  return rows.sort(
    (a, b) =>
      (b.cost_usd ?? 0) - (a.cost_usd ?? 0) ||
      b.tokens - a.tokens ||
      a.job_id.localeCompare(b.job_id),
  );
}

/** What each of `ids` cost today (`day`) and in all, for `/jobs`. */
export function jobCosts(
  db: Db,
  ids: readonly string[],
  day: string,
): Map<string, { today: UsageSums; all: UsageSums }> {
  const costs = new Map(ids.map((id) => [id, { today: zeroSums(), all: zeroSums() }]));
  if (ids.length === 0) return costs;
  const rows = db
    .select({
      job_id: sql<string>`${u.jobId}`,
      today: sql<number>`${u.day} = ${day}`,
      ...sumColumns,
    })
    .from(u)
    .where(inArray(u.jobId, [...ids]))
    .groupBy(u.jobId, sql`${u.day} = ${day}`)
    .all();
  for (const { job_id, today, ...sums } of rows) {
    const cost = costs.get(job_id)!;
    const row = withTokens(sums);
    addSums(cost.all, row);
    if (today) addSums(cost.today, row);
  }
  return costs;
}
