import type { TimerHandle } from '../core/clock.ts';
import type { Address } from '../core/types.ts';
import type { JobRow, ManifestJob, RunOutcome } from '../store/job-repo.ts';
import { createJobListing } from './describe.ts';
import type { DueJob, Scheduler, SchedulerDeps } from './types.ts';

export type { BoundRoute, DueJob, ManifestCron, Scheduler, SchedulerDeps } from './types.ts';

/** The longest single wait: the scheduler wakes at least this often to re-sync. */
export const MAX_WAIT_MS = 60 * 60_000;
/** The wait before trying again after a round that could start nothing. */
const STALL_WAIT_MS = 1_000;

interface Item {
  job: JobRow;
  dueAt: number;
}

/**
 * The scheduler (SPEC §8). One timer on the injected clock, armed for the earliest next
 * time; croner only computes times. At most one job runs at a time: jobs due at the same
 * time run one after another, and a tick that falls due while a job runs is skipped and
 * logged (`job_skipped_overlap`); a one-shot waits for the running job instead.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { jobs, clock, log } = deps;
  const listing = createJobListing({ jobs, clock, timezone: deps.timezone });
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  let state: 'new' | 'started' | 'stopped' = 'new';
  let timer: TimerHandle | undefined;
  /** A `syncSoon` waiting for its tick. */
  let soon: TimerHandle | undefined;
  let busy = false;
  let draining: Promise<void> | undefined;
  /** When the running round's jobs were collected: ticks after it overlap. */
  let roundAt = 0;
  let current: DueJob | undefined;
  let stalled = false;
  let unsubscribe = () => {};

  function guard<T>(step: string, work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      log.error({ event: 'scheduler_error', step, err: error }, `scheduler: ${step} failed`);
      return undefined;
    }
  }

  function materialize(): void {
    const wanted: ManifestJob[] = deps.routes().flatMap((route) =>
      deps.manifestJobs(route.pack).map((entry) => ({
        pack: route.pack,
        cronId: entry.id,
        to: toAddress(route),
        schedule: entry.schedule,
        skill: entry.skill,
        enabled: entry.enabled,
      })),
    );
    const counts = jobs.syncManifest(wanted, clock.now());
    if (counts.added + counts.updated + counts.removed > 0)
      log.info({ event: 'jobs_synced', ...counts }, 'manifest jobs synced');
  }

  /** Cron jobs do not catch up: a tick missed while stopped is logged and passed over. */
  function passMissedTicks(now: number): void {
    for (const job of jobs.waitingCron()) {
      if (job.nextRunAt !== null && job.nextRunAt >= now) continue;
      const nextRunAt = jobs.skipTo(job.id, now);
      if (job.nextRunAt === null) continue; // a row from before the scheduler: just armed
      log.info(
        { event: 'job_missed', jobId: job.id, pack: job.pack, missedAt: iso(job.nextRunAt) },
        `job ${job.id} missed its tick; next ${iso(nextRunAt)}`,
      );
    }
  }

  /**
   * Claimed runs a crash interrupted: started once more; interrupted twice, given up. Only
   * attempts whose turn started count: a run that merely waited for its turn still runs.
   */
  function interruptedRuns(now: number): Item[] {
    const items: Item[] = [];
    for (const job of jobs.claimed()) {
      const dueAt = job.runningDueAt!;
      if (job.runAttempts < 2) {
        log.info(
          {
            event: 'job_resumed',
            jobId: job.id,
            pack: job.pack,
            dueAt: iso(dueAt),
            attempts: job.runAttempts,
          },
          `job ${job.id} was interrupted; running it again`,
        );
        items.push({ job, dueAt });
        continue;
      }
      jobs.finishRun(job.id, dueAt, now);
      jobs.recordOutcome(job.id, 'failed');
      log.warn(
        {
          event: 'job_run',
          jobId: job.id,
          pack: job.pack,
          outcome: 'failed',
          ms: 0,
          dueAt: iso(dueAt),
          reason: 'interrupted twice',
        },
        `job ${job.id} was interrupted twice; giving that run up`,
      );
    }
    return items;
  }

  const dueItems = (now: number): Item[] =>
    jobs.due(now).map((job) => ({ job, dueAt: job.nextRunAt! }));

  function arm(): void {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    if (state !== 'started') return;
    const now = clock.now();
    // While a job runs, what is already due waits for it; only later ticks wake us.
    const next = guard('arm', () => jobs.earliest(busy ? now : undefined));
    let wait = next === undefined ? MAX_WAIT_MS : Math.min(Math.max(0, next - now), MAX_WAIT_MS);
    if (stalled && !busy) wait = Math.max(wait, STALL_WAIT_MS);
    timer = clock.setTimeout(onTimer, wait);
  }

  function onTimer(): void {
    timer = undefined;
    if (state !== 'started') return;
    guard('sync', materialize);
    const now = clock.now();
    if (busy) guard('overlap', () => skipOverlapping(now));
    else launch(guard('due', () => dueItems(now)) ?? []);
    arm();
  }

  function skipOverlapping(now: number): void {
    for (const job of jobs.cronDueBetween(roundAt, now)) {
      const nextRunAt = jobs.skipTo(job.id, now);
      log.info(
        {
          event: 'job_skipped_overlap',
          jobId: job.id,
          pack: job.pack,
          dueAt: iso(job.nextRunAt),
          runningJobId: current?.id,
        },
        `job ${job.id} skipped: another job is running; next ${iso(nextRunAt)}`,
      );
    }
  }

  function launch(items: Item[]): void {
    if (items.length === 0 || busy || state !== 'started') return;
    busy = true;
    roundAt = clock.now();
    draining = drain(items);
  }

  /** Runs `items`, then whatever fell due meanwhile (one-shots that waited), until none. */
  async function drain(items: Item[]): Promise<void> {
    const tried = new Set<string>();
    let started = 0;
    try {
      let round = items;
      while (round.length > 0) {
        for (const item of round) {
          if (state !== 'started') return;
          tried.add(`${item.job.id}@${item.dueAt}`);
          if (await runOne(item)) started++;
        }
        roundAt = clock.now();
        round = dueItems(roundAt).filter((i) => !tried.has(`${i.job.id}@${i.dueAt}`));
      }
    } catch (error) {
      log.error({ event: 'scheduler_error', step: 'drain', err: error }, 'scheduler: run failed');
    } finally {
      stalled = started === 0;
      busy = false;
      current = undefined;
      draining = undefined;
      arm();
    }
  }

  /** Claims, runs and acknowledges one run; false when it could not be claimed. */
  async function runOne({ job, dueAt }: Item): Promise<boolean> {
    const claimed = guard('claim', () => jobs.claim(job.id, dueAt));
    if (!claimed) return false;
    current = { ...claimed, dueAt };
    const startedAt = clock.now();
    let outcome: RunOutcome | 'interrupted' = 'failed';
    let error: unknown;
    try {
      outcome = await deps.run(current, () => guard('start', () => jobs.startRun(job.id, dueAt)));
    } catch (thrown) {
      error = thrown;
    }
    // Cut short by shutdown: the claim stays, and the run goes again on the next start.
    if (outcome === 'interrupted') {
      log.info({ event: 'job_interrupted', jobId: job.id, pack: job.pack }, 'job interrupted');
      return true;
    }
    guard('finish', () => {
      jobs.finishRun(job.id, dueAt, clock.now());
      jobs.recordOutcome(job.id, outcome);
    });
    deps.onRan?.({ jobId: job.id, pack: job.pack, outcome, ms: clock.now() - startedAt });
    const line = {
      event: 'job_run',
      jobId: job.id,
      pack: job.pack,
      outcome,
      ms: clock.now() - startedAt,
      dueAt: iso(dueAt),
      ...(error === undefined ? {} : { err: error }),
    };
    if (error === undefined) log.info(line, `job ${job.id}: ${outcome}`);
    else log.warn(line, `job ${job.id} failed`);
    return true;
  }

  return {
    start() {
      if (state !== 'new') return;
      state = 'started';
      unsubscribe = jobs.onChange(arm);
      guard('sync', materialize);
      const now = clock.now();
      guard('missed', () => passMissedTicks(now));
      const items = [
        ...(guard('resume', () => interruptedRuns(now)) ?? []),
        ...(guard('due', () => dueItems(now)) ?? []),
      ];
      launch(items);
      arm();
    },

    sync() {
      guard('sync', materialize);
      arm();
    },

    syncSoon() {
      if (state !== 'started' || soon !== undefined) return;
      soon = clock.setTimeout(() => {
        soon = undefined;
        if (state === 'started') this.sync();
      }, 0);
    },

    async stop() {
      state = 'stopped';
      unsubscribe();
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      if (soon !== undefined) clock.clearTimeout(soon);
      soon = undefined;
      await draining;
    },

    async idle() {
      await draining;
    },

    next: (address) => listing.next(address),

    list(address) {
      return jobs.forAddress(address);
    },

    describe: (address) => listing.describe(address),
  };
}

/** Where a job delivers: its chat, or its forum topic. */
export function jobAddress(job: Pick<JobRow, 'platform' | 'chatId' | 'threadId'>): Address {
  return toAddress(job);
}

function toAddress(to: { platform?: string; chatId: string; threadId: string | null }): Address {
  const platform = to.platform ?? 'tg';
  return to.threadId === null
    ? { platform, chatId: to.chatId }
    : { platform, chatId: to.chatId, threadId: to.threadId };
}
