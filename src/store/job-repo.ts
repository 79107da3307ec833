import { randomUUID } from 'node:crypto';
import {
  and,
  asc,
  count,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  lte,
  min,
  or,
  sql,
} from 'drizzle-orm';
import { SatchelError } from '../core/errors.ts';
import type { Address } from '../core/types.ts';
import { nextRunAfter } from '../time/next-run.ts';
import type { Db } from './client.ts';
import { type ManifestJob, syncManifestJobs } from './manifest-jobs.ts';
import { jobs } from './schema.ts';

export { type ManifestJob, manifestKey } from './manifest-jobs.ts';

/** A job. Every writer sets `chatId`; the column is nullable only for SQLite's sake. */
export type JobRow = Omit<typeof jobs.$inferSelect, 'chatId'> & { chatId: string };
export type JobKind = JobRow['kind'];
/** How a run ended, as `job_run` logs it. */
export type RunOutcome = NonNullable<JobRow['lastOutcome']>;
/** Why satchel paused a job itself (see `pauseAt`). */
export type PauseReason = NonNullable<JobRow['pausedBy']>;

/** The default of MAX_JOBS: the most jobs one pack may have in one chat or topic. */
export const DEFAULT_MAX_JOBS = 50;

/** `create` would take a pack over its MAX_JOBS jobs in a chat or topic. */
export class JobLimitError extends SatchelError {
  constructor(
    readonly limit: number,
    readonly pack: string,
  ) {
    super('job_limit', `pack ${pack} already has ${limit} jobs in this chat (MAX_JOBS)`);
  }
}

/**
 * Scheduled jobs. The `schedule` tool only ever sees its own pack's jobs in its own chat
 * (`list`, `find`, `setEnabled`, `remove`); the scheduler uses the rest. Cron times are
 * read in `timezone`. With `platforms`, what the scheduler sees (due, claimed and manifest
 * jobs) is those channels' jobs only: each process runs the jobs it can deliver. `create`
 * keeps each pack within `maxJobs` jobs per chat or topic (MAX_JOBS), its manifest's
 * jobs included.
 */
export function createJobRepo(
  db: Db,
  options: { timezone: string; platforms?: readonly string[]; maxJobs?: number },
) {
  const { timezone, platforms, maxJobs = DEFAULT_MAX_JOBS } = options;
  const mine = platforms === undefined ? undefined : inArray(jobs.platform, [...platforms]);
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const at = (to: Address) =>
    and(
      eq(jobs.platform, to.platform),
      eq(jobs.chatId, to.chatId),
      to.threadId === undefined ? isNull(jobs.threadId) : eq(jobs.threadId, to.threadId),
    );
  const owned = (pack: string, to: Address) => and(eq(jobs.pack, pack), at(to));
  /** Enabled and not running: the jobs that may fall due. */
  const waiting = and(eq(jobs.enabled, true), isNull(jobs.runningDueAt), mine);
  const rows = (query: { all(): unknown[] }) => query.all() as JobRow[];
  /** Whether `resumeAt` finds anything: one indexed read, prepared once, without drizzle. */
  const anyPaused = db.$client
    .prepare<[string, string, string | null, string], number>(
      `SELECT 1 FROM jobs WHERE platform = ? AND chat_id = ? AND thread_id IS ?
         AND enabled = 0 AND paused_by = ? LIMIT 1`,
    )
    .pluck();
  /** The next time after `after`; null when the stored schedule has none (or cannot be read). */
  const nextAfter = (job: { kind: JobKind; schedule: string }, after: number) => {
    try {
      return nextRunAfter(job, timezone, after);
    } catch {
      return null;
    }
  };
  const find = (id: string, pack: string, to: Address) =>
    db
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, id), owned(pack, to)))
      .get() as JobRow | undefined;

  return {
    /**
     * Calls `listener` after the `schedule` tool creates, pauses, resumes or removes a job,
     * and after a topic's jobs are paused or resumed.
     */
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /**
     * Stores a tool job. Throws a JobLimitError when the pack already has `maxJobs` jobs in
     * that chat or topic: counted and written in one transaction, so nothing slips past.
     */
    create(
      fields: {
        pack: string;
        to: Address;
        kind: JobKind;
        schedule: string;
        nextRunAt: number | null;
        skill?: string;
        prompt?: string;
        /** The untrusted sources of the session that created it: its runs start tainted. */
        taint?: readonly string[];
        /** Who created it (`people.id`): its runs are booked to them (SPEC §19). */
        person?: string | undefined;
      },
      now: number,
    ): JobRow {
      const row: JobRow = {
        id: randomUUID().slice(0, 8),
        pack: fields.pack,
        source: 'tool',
        kind: fields.kind,
        manifestKey: null,
        person: fields.person ?? null,
        platform: fields.to.platform,
        chatId: fields.to.chatId,
        threadId: fields.to.threadId ?? null,
        schedule: fields.schedule,
        skill: fields.skill ?? null,
        prompt: fields.prompt ?? null,
        enabled: true,
        pausedBy: null,
        nextRunAt: fields.nextRunAt,
        lastRunAt: null,
        lastOutcome: null,
        runningDueAt: null,
        runAttempts: 0,
        model: null,
        taint: fields.taint?.length ? fields.taint.join('\n') : null,
        createdAt: now,
      };
      db.transaction(
        (tx) => {
          const held =
            tx.select({ n: count() }).from(jobs).where(owned(fields.pack, fields.to)).get()?.n ?? 0;
          if (held >= maxJobs) throw new JobLimitError(maxJobs, fields.pack);
          tx.insert(jobs).values(row).run();
        },
        { behavior: 'immediate' },
      );
      changed();
      return row;
    },

    /**
     * Adds `sources` to why the job's runs start tainted (SPEC §17): it was changed in a
     * session that had read untrusted content. Nothing when there are none.
     */
    taint(id: string, sources: readonly string[]): void {
      if (sources.length === 0) return;
      const row = db.select({ taint: jobs.taint }).from(jobs).where(eq(jobs.id, id)).get();
      if (!row) return;
      const known = row.taint?.split('\n') ?? [];
      const all = [...known, ...sources.filter((s) => !known.includes(s))];
      db.update(jobs)
        .set({ taint: all.join('\n') })
        .where(eq(jobs.id, id))
        .run();
    },

    /** The pack's jobs in this chat or topic, oldest first. */
    list(pack: string, to: Address): JobRow[] {
      return rows(db.select().from(jobs).where(owned(pack, to)).orderBy(asc(jobs.createdAt)));
    },

    find,

    /**
     * Pauses or resumes one of the pack's jobs in this chat; false when there is none. A
     * resumed cron job continues from its next tick after `now`, without catching up.
     */
    setEnabled(id: string, pack: string, to: Address, enabled: boolean, now: number): boolean {
      const job = find(id, pack, to);
      if (!job) return false;
      const nextRunAt = enabled && job.kind === 'cron' ? nextAfter(job, now) : job.nextRunAt;
      // The user's word is final: a job they pause stays paused when its topic reopens.
      db.update(jobs).set({ enabled, pausedBy: null, nextRunAt }).where(eq(jobs.id, id)).run();
      changed();
      return true;
    },

    /**
     * Pauses every running job (all packs) that delivers to `to`, marked with `reason`, so
     * that `resumeAt` can tell them from those the user paused; returns how many.
     */
    pauseAt(to: Address, reason: PauseReason): number {
      const where = and(at(to), eq(jobs.enabled, true));
      const paused = db.update(jobs).set({ enabled: false, pausedBy: reason }).where(where).run();
      if (paused.changes > 0) changed();
      return paused.changes;
    },

    /**
     * Resumes the jobs of `to` that `pauseAt` paused for `reason` (not those the user paused);
     * a cron job continues from its next tick after `now`, without catching up. Returns how
     * many.
     */
    resumeAt(to: Address, reason: PauseReason, now: number): number {
      // Every message from a person asks (idle.ts): most chats have nothing paused.
      if (!anyPaused.get(to.platform, to.chatId, to.threadId ?? null, reason)) return 0;
      const paused = rows(
        db
          .select()
          .from(jobs)
          .where(and(at(to), eq(jobs.enabled, false), eq(jobs.pausedBy, reason))),
      );
      db.transaction((tx) => {
        for (const job of paused) {
          const nextRunAt = job.kind === 'cron' ? nextAfter(job, now) : job.nextRunAt;
          tx.update(jobs)
            .set({ enabled: true, pausedBy: null, nextRunAt })
            .where(eq(jobs.id, job.id))
            .run();
        }
      });
      if (paused.length > 0) changed();
      return paused.length;
    },

    remove(id: string, pack: string, to: Address): boolean {
      const removed =
        db
          .delete(jobs)
          .where(and(eq(jobs.id, id), owned(pack, to)))
          .run().changes > 0;
      if (removed) changed();
      return removed;
    },

    /** Every job of a chat or topic (all packs), the soonest first; paused ones last. */
    forAddress(to: Address): JobRow[] {
      return rows(
        db
          .select()
          .from(jobs)
          .where(at(to))
          .orderBy(
            sql`${jobs.enabled} DESC`,
            sql`${jobs.nextRunAt} IS NULL`,
            asc(jobs.nextRunAt),
            asc(jobs.createdAt),
          ),
      );
    },

    /** Enabled jobs not running whose next time is at or before `now`, the earliest first. */
    due(now: number): JobRow[] {
      return rows(
        db
          .select()
          .from(jobs)
          .where(and(waiting, lte(jobs.nextRunAt, now)))
          .orderBy(asc(jobs.nextRunAt), asc(jobs.createdAt), sql`rowid`),
      );
    },

    /** Cron jobs (enabled, not running) whose next tick is in (`from`, `to`]. */
    cronDueBetween(from: number, to: number): JobRow[] {
      return rows(
        db
          .select()
          .from(jobs)
          .where(
            and(waiting, eq(jobs.kind, 'cron'), gt(jobs.nextRunAt, from), lte(jobs.nextRunAt, to)),
          )
          .orderBy(asc(jobs.nextRunAt)),
      );
    },

    /** Enabled cron jobs that are not running. */
    waitingCron(): JobRow[] {
      return rows(
        db
          .select()
          .from(jobs)
          .where(and(waiting, eq(jobs.kind, 'cron'))),
      );
    },

    /** Runs that were started and not acknowledged (a crash mid-run leaves them). */
    claimed(): JobRow[] {
      return rows(
        db
          .select()
          .from(jobs)
          .where(and(isNotNull(jobs.runningDueAt), mine))
          .orderBy(asc(jobs.runningDueAt)),
      );
    },

    /** The earliest next time of an enabled job that is not running, after `after` if given. */
    earliest(after?: number): number | undefined {
      const where = after === undefined ? waiting : and(waiting, gt(jobs.nextRunAt, after));
      return (
        db
          .select({ at: min(jobs.nextRunAt) })
          .from(jobs)
          .where(where)
          .get()?.at ?? undefined
      );
    },

    /** Moves a cron job to its first tick after `after` (a missed or skipped tick). */
    skipTo(id: string, after: number): number | null {
      const job = db.select().from(jobs).where(eq(jobs.id, id)).get();
      if (!job) return null;
      const nextRunAt = nextAfter(job, after);
      db.update(jobs).set({ nextRunAt }).where(eq(jobs.id, id)).run();
      return nextRunAt;
    },

    /**
     * Claims the run due at `dueAt`, durably, before it starts: the job must still be enabled
     * and due then, or be that very run left claimed by a crash (it is started again). The
     * claimed row, or undefined when the job is gone, paused or moved. A claim is not an
     * attempt: the run may still wait for its conversation when the process dies.
     */
    claim(id: string, dueAt: number): JobRow | undefined {
      return db
        .update(jobs)
        .set({ runningDueAt: dueAt })
        .where(
          and(
            eq(jobs.id, id),
            or(and(waiting, eq(jobs.nextRunAt, dueAt)), eq(jobs.runningDueAt, dueAt)),
          ),
        )
        .returning()
        .get() as JobRow | undefined;
    },

    /**
     * Counts an attempt of the claimed run due at `dueAt`: its turn is starting. Only these
     * count towards giving a run up, so a crash while a run merely waited costs it nothing.
     */
    startRun(id: string, dueAt: number): void {
      db.update(jobs)
        .set({ runAttempts: sql`${jobs.runAttempts} + 1` })
        .where(and(eq(jobs.id, id), eq(jobs.runningDueAt, dueAt)))
        .run();
    },

    /**
     * Acknowledges the run due at `dueAt`: a one-shot is removed; a cron job is released with
     * `lastRunAt` = `now` and its next tick after both. Call it in the transaction that
     * commits the run's reply. Idempotent: false when that run is no longer claimed.
     */
    finishRun(id: string, dueAt: number, now: number): boolean {
      const job = db
        .select()
        .from(jobs)
        .where(and(eq(jobs.id, id), eq(jobs.runningDueAt, dueAt)))
        .get();
      if (!job) return false;
      if (job.kind === 'once') return db.delete(jobs).where(eq(jobs.id, id)).run().changes > 0;
      db.update(jobs)
        .set({
          runningDueAt: null,
          runAttempts: 0,
          lastRunAt: now,
          nextRunAt: nextAfter(job, Math.max(now, dueAt)),
        })
        .where(eq(jobs.id, id))
        .run();
      return true;
    },

    recordOutcome(id: string, outcome: RunOutcome): void {
      db.update(jobs).set({ lastOutcome: outcome }).where(eq(jobs.id, id)).run();
    },

    /** Makes the manifest jobs exactly `wanted` (see syncManifestJobs). */
    syncManifest(wanted: readonly ManifestJob[], now: number) {
      return syncManifestJobs(
        db,
        wanted,
        (schedule) => nextAfter({ kind: 'cron', schedule }, now),
        now,
        platforms,
      );
    },
  };
}

export type JobRepo = ReturnType<typeof createJobRepo>;
