import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { createRecent } from '../core/recent.ts';
import { type Address, addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import type { JobRow } from './job-repo.ts';
import { conversationRoutes, jobs } from './schema.ts';

/** A conversation's `last_person_at` is written at most this often; `flush` writes the rest. */
export const PERSON_WRITE_EVERY_MS = 60_000;
/** Conversations whose last write is remembered, and most times kept before a flush. */
const REMEMBERED = 1_000;

/**
 * When a person last wrote in each conversation (`conversation_routes.last_person_at`), and
 * the recurring jobs of conversations nobody wrote in for a while (SPEC §8: they pause).
 * A job's own run never counts as a person writing. With `platforms`, only those channels'
 * jobs are paused (each process runs the jobs it can deliver, see job-repo.ts).
 *
 * A conversation's time is written at most once a minute: a message within a minute of the
 * last one written is kept in memory, and `flush` writes it. `pauseIdle` flushes first, so
 * the pause sees every message this process took in; a crash loses at most the last minute's
 * (its jobs then pause up to a minute early, after JOB_IDLE_DAYS days).
 */
export function createPersonActivity(db: Db, options: { platforms?: readonly string[] } = {}) {
  const mine =
    options.platforms === undefined ? undefined : inArray(jobs.platform, [...options.platforms]);
  const p = sql.placeholder;
  const upsert = db
    .insert(conversationRoutes)
    .values({
      address: p('address'),
      platform: p('platform'),
      chatId: p('chatId'),
      threadId: p('threadId'),
      updatedAt: p('now'),
      lastPersonAt: p('now'),
    })
    .onConflictDoUpdate({
      target: conversationRoutes.address,
      set: { lastPersonAt: sql`excluded.last_person_at` },
    })
    .prepare();
  /** A kept time onto its route (never made again: a chat move may have taken it away). */
  const update = db
    .update(conversationRoutes)
    .set({ lastPersonAt: sql`${p('now')}` })
    .where(eq(conversationRoutes.address, p('address')))
    .prepare();
  /** When each conversation's time was last written (by address key). */
  const written = createRecent<string, number>(REMEMBERED);
  /** Later times not written yet (within the minute), by address key. */
  const pending = new Map<string, number>();

  const write = (address: string, to: Address, now: number): void => {
    upsert.run({ address, ...routeParts(to), now });
    written.set(address, now);
    pending.delete(address);
  };

  /** Writes the times kept in memory. */
  const flush = (): void => {
    if (pending.size === 0) return;
    db.transaction(() => {
      for (const [address, now] of pending) update.run({ address, now });
    });
    for (const [address, now] of pending) written.set(address, now);
    pending.clear();
  };

  /**
   * Gives a route back to each conversation of a recurring job that has none (its row taken
   * away by hand, or an older database restored), so the idle pause sees the job: its time is
   * the last a person is known to have been there — the newest message a person stored in its
   * chat sessions, or the newest of its jobs' creation, whichever is later. Returns how many.
   */
  const restoreRoutes = (): number => {
    const lost = db.all<{ platform: string; chatId: string; threadId: string | null; at: number }>(
      sql`SELECT platform, chat_id AS chatId, thread_id AS threadId, max(created_at) AS at
        FROM jobs j WHERE kind = 'cron' AND chat_id IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM conversation_routes r WHERE r.platform = j.platform
            AND r.chat_id = j.chat_id AND r.thread_id IS j.thread_id)
        GROUP BY platform, chat_id, thread_id`,
    );
    for (const job of lost) {
      const to: Address = {
        platform: job.platform,
        chatId: job.chatId,
        ...(job.threadId === null ? {} : { threadId: job.threadId }),
      };
      const address = addressKey(to);
      const [said] = db.all<{ at: number | null }>(sql`
        SELECT max(m.created_at) AS at FROM messages m JOIN sessions s ON s.id = m.session_id
        WHERE s.address = ${address} AND s.kind = 'chat' AND m.role = 'user'`);
      const at = Math.max(job.at, said?.at ?? 0);
      db.insert(conversationRoutes)
        .values({ address, ...routeParts(to), updatedAt: at, lastPersonAt: at })
        .onConflictDoNothing()
        .run();
    }
    return lost.length;
  };

  return {
    /**
     * A person wrote in `to` at `now`: kept on its route, which is made when it has none.
     * Within a minute of the time last written, it is kept in memory until `flush`.
     */
    wrote(to: Address, now: number): void {
      const address = addressKey(to);
      const last = written.get(address);
      if (last === undefined || now < last || now - last >= PERSON_WRITE_EVERY_MS) {
        write(address, to, now);
        return;
      }
      pending.set(address, now);
      if (pending.size >= REMEMBERED) flush();
    },

    /** Writes what `wrote` kept in memory (before a pause is decided, and at shutdown). */
    flush,

    /**
     * Gives each route that has no `last_person_at` (made before satchel kept it, or bound
     * without a message: a topic named after a pack) the last time it is known a person was
     * there: the newest message a person stored in its chat sessions, or the route's last
     * change (a bind, a setting), whichever is later. So an upgrade pauses only the jobs of
     * conversations that were in fact unattended that long, not every job at once. A job whose
     * conversation has no route at all gets one first (`restoreRoutes`).
     */
    backfill(): number {
      const restored = restoreRoutes();
      return (
        restored +
        db.run(sql`
        UPDATE conversation_routes SET last_person_at = max(updated_at, coalesce((
          SELECT max(m.created_at) FROM messages m JOIN sessions s ON s.id = m.session_id
          WHERE s.address = conversation_routes.address AND s.kind = 'chat' AND m.role = 'user'
        ), 0))
        WHERE last_person_at IS NULL`).changes
      );
    },

    /**
     * Pauses (`paused_by` 'idle') every enabled recurring job that is not running whose
     * conversation had no person write since `before`; returns the jobs it paused. A
     * one-shot is left to run: it costs one run, and a reminder set far ahead must come.
     */
    pauseIdle(before: number): JobRow[] {
      flush();
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

const routeParts = (to: Address) => ({
  platform: to.platform,
  chatId: to.chatId,
  threadId: to.threadId ?? null,
});
