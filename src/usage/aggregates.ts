import { and, desc, inArray, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../store/client.ts';
import { sessions, usageEvents as u, webConversations } from '../store/schema.ts';
import { createGroupCache } from './group-cache.ts';
import { jobUsage } from './job-usage.ts';
import { personUsage } from './person-usage.ts';
import { sumColumns, type UsageSums, withTokens, zeroSums } from './sums.ts';

export type { UsageGroup } from './group-cache.ts';
export { addSums, type UsageSums, zeroSums } from './sums.ts';

/** One turn's paid calls. `started_at` is when its first call started (ms since epoch). */
export interface TurnUsage extends Omit<UsageSums, 'input_tokens' | 'output_tokens'> {
  turn_id: string;
  started_at: number;
  pack: string | null;
  chat: string | null;
  topic: string | null;
  /** From the start of the turn's first paid call to the end of its last. */
  latency_ms: number;
  /** `schedule` for a turn of a job's session, `web` for one of the web chat, else `chat`. */
  source: 'chat' | 'schedule' | 'web';
  /** The edge's platform the turn's conversation is on (null on rows from before it was kept). */
  channel: string | null;
  /** Who the turn was for (`people.id`, SPEC §19; null on rows from before people were kept). */
  person: string | null;
}

/** What a turn on an edge's platform counts as: that edge's own word (EdgeFactory.source). */
export type TurnSourceOf = (platform: string) => 'chat' | 'web';

/** Ledger rows read at a time while looking for the latest turns. */
const PAGE = 200;

/**
 * The ledger's aggregate queries, shared by the quota gate's totals, `/usage`, the
 * dashboard's `/api/usage` and `satchel usage`. Every query is an indexed SQL aggregate:
 * nothing here loads the ledger row by row.
 */
export function createUsageAggregates(db: Db, sourceOf: TurnSourceOf = () => 'chat') {
  return {
    /** The sums of the rows that match `where` (all rows without it). */
    sums(where?: SQL): UsageSums {
      const row = db.select(sumColumns).from(u).where(where).get();
      return row ? withTokens(row) : zeroSums();
    },

    /**
     * The ledger between two calendar days (inclusive), grouped by day, pack, model and
     * kind: a few hundred rows for a month, from which every period and table is summed.
     */
    groups: createGroupCache(db),

    /** Each job's usage from a calendar day on (`by_job`), most spend first. */
    byJob: (fromDay: string) => jobUsage(db, fromDay),

    /** Each person's usage from a calendar day on (`by_person`), most spend first. */
    byPerson: (fromDay: string) => personUsage(db, fromDay),

    /** The `limit` turns with the latest paid calls, newest first. */
    recentTurns(limit: number): TurnUsage[] {
      const ids = latestTurnIds(db, limit);
      if (ids.length === 0) return [];
      const rows = db
        .select({
          turn_id: sql<string>`${u.turnId}`,
          started_at: sql<number>`min(${u.ts} - ${u.latencyMs})`.as('started_at'),
          ended_at: sql<number>`max(${u.ts})`,
          pack: sql<string | null>`max(${u.pack})`,
          // A web conversation by its title (SPEC §16), kept after it was deleted; else the id.
          chat: sql<string | null>`coalesce(max(${webConversations.title}), max(${u.chatId}))`,
          topic: sql<string | null>`max(${u.threadId})`,
          channel: sql<string | null>`max(${u.channel})`,
          person: sql<string | null>`max(${u.person})`,
          ...sumColumns,
          job: sql<number>`coalesce(max(${sessions.kind} = 'job'), 0)`,
          // A session's address starts with its platform (`<platform>:<chatId>`, core/types.ts).
          platform: sql<
            string | null
          >`max(substr(${sessions.address}, 1, instr(${sessions.address}, ':') - 1))`,
        })
        .from(u)
        .leftJoin(sessions, sql`${sessions.id} = ${u.sessionId}`)
        .leftJoin(webConversations, sql`${webConversations.id} = ${u.chatId}`)
        .where(inArray(u.turnId, ids))
        .groupBy(u.turnId)
        .orderBy(sql`started_at desc`)
        .all();
      return rows.map(({ ended_at, job, platform, input_tokens, output_tokens, ...row }) => ({
        ...row,
        tokens: input_tokens + output_tokens,
        latency_ms: Math.max(0, ended_at - row.started_at),
        source: job ? 'schedule' : platform ? sourceOf(platform) : 'chat',
      }));
    },
  };
}

export type UsageAggregates = ReturnType<typeof createUsageAggregates>;

/**
 * The ids of the `limit` turns whose calls were booked last. Walks the ledger backwards by
 * rowid a page at a time and stops at the `limit`-th distinct turn, so it reads a few dozen
 * rows, not all of them.
 */
function latestTurnIds(db: Db, limit: number): string[] {
  const ids = new Set<string>();
  let before = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const page = db
      .select({ id: u.id, turnId: u.turnId })
      .from(u)
      .where(and(isNotNull(u.turnId), lt(u.id, before)))
      .orderBy(desc(u.id))
      .limit(PAGE)
      .all();
    for (const row of page) {
      ids.add(row.turnId!);
      if (ids.size >= limit) return [...ids];
    }
    if (page.length < PAGE) return [...ids];
    before = page[page.length - 1]!.id;
  }
}
