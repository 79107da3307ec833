import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { type Address, addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import type { JobRow } from './job-repo.ts';
import { conversationRoutes, jobs } from './schema.ts';

/**
 * When a person last wrote in each conversation (`conversation_routes.last_person_at`), and
 * the recurring jobs of conversations nobody wrote in for a while (SPEC §8: they pause).
 * A job's own run never counts as a person writing. With `platforms`, only those channels'
 * jobs are paused (each process runs the jobs it can deliver, see job-repo.ts).
 */
export function createPersonActivity(db: Db, options: { platforms?: readonly string[] } = {}) {
  const mine =
    options.platforms === undefined ? undefined : inArray(jobs.platform, [...options.platforms]);
  return {
    /** A person wrote in `to` at `now`: kept on its route, which is made when it has none. */
    wrote(to: Address, now: number): void {
      db.insert(conversationRoutes)
        .values({
          address: addressKey(to),
          platform: to.platform,
          chatId: to.chatId,
          threadId: to.threadId ?? null,
          updatedAt: now,
          lastPersonAt: now,
        })
        .onConflictDoUpdate({ target: conversationRoutes.address, set: { lastPersonAt: now } })
        .run();
    },

    /**
     * Gives each route that has no `last_person_at` (made before satchel kept it, or bound
     * without a message: a topic named after a pack) the last time it is known a person was
     * there: the newest message a person stored in its chat sessions, or the route's last
     * change (a bind, a setting), whichever is later. So an upgrade pauses only the jobs of
     * conversations that were in fact unattended that long, not every job at once.
     */
    backfill(): number {
      return db.run(sql`
        UPDATE conversation_routes SET last_person_at = max(updated_at, coalesce((
          SELECT max(m.created_at) FROM messages m JOIN sessions s ON s.id = m.session_id
          WHERE s.address = conversation_routes.address AND s.kind = 'chat' AND m.role = 'user'
        ), 0))
        WHERE last_person_at IS NULL`).changes;
    },

    /**
     * Pauses (`paused_by` 'idle') every enabled recurring job that is not running whose
     * conversation had no person write since `before`; returns the jobs it paused. A
     * one-shot is left to run: it costs one run, and a reminder set far ahead must come.
     */
    pauseIdle(before: number): JobRow[] {
      const idle = sql`EXISTS (SELECT 1 FROM conversation_routes r
        WHERE r.platform = "jobs"."platform" AND r.chat_id = "jobs"."chat_id"
          AND r.thread_id IS "jobs"."thread_id" AND r.last_person_at < ${before})`;
      return db
        .update(jobs)
        .set({ enabled: false, pausedBy: 'idle' })
        .where(
          and(eq(jobs.enabled, true), eq(jobs.kind, 'cron'), isNull(jobs.runningDueAt), mine, idle),
        )
        .returning()
        .all() as JobRow[];
    },
  };
}

export type PersonActivity = ReturnType<typeof createPersonActivity>;
