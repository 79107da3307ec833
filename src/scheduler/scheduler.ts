import type { Address } from '../core/types.ts';
import type { JobRow, ManifestJob, RunOutcome } from '../store/job-repo.ts';
import { createAlarm } from './alarm.ts';
import { createJobListing } from './describe.ts';
import {
  claimed,
  drained,
  isStarted,
  launched,
  roundDone,
  roundEnded,
  type SchedulerPhase,
  started,
  stopped,
  wakeIn,
} from './phase.ts';
import type { DueJob, Scheduler, SchedulerDeps } from './types.ts';

export { MAX_WAIT_MS } from './phase.ts';
export type { BoundRoute, DueJob, ManifestCron, Scheduler, SchedulerDeps } from './types.ts';

interface Item {
  job: JobRow;
  dueAt: number;
}

/**
 * The scheduler (SPEC §8). One timer on the injected clock, armed for the earliest next
 * time; croner only computes times. At most one job runs at a time: jobs due at the same
 * time run one after another, and a tick that falls due while a job runs is skipped and
 * logged (`job_skipped_overlap`); a one-shot waits for the running job instead. Its one
 * state is a `SchedulerPhase` (phase.ts), changed only by the transitions there.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { jobs, clock, log } = deps;
  const listing = createJobListing({ jobs, clock, timezone: deps.timezone });
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  let phase: SchedulerPhase = { tag: 'new' };
  /** The one timer, armed for the earliest next time. */
  const wake = createAlarm(clock);
  /** A `syncSoon` waiting for its tick. */
  const soon = createAlarm(clock);

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
        model: entry.model ?? null,
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

  const dueItems = (now: number): Item[] => {
    guard('idle', () => deps.sweepIdle?.(now));
    return jobs.due(now).map((job) => ({ job, dueAt: job.nextRunAt! }));
  };

  function arm(): void {
    wake.clear();
    if (!isStarted(phase)) return;
    const now = clock.now();
    // While a job runs, what is already due waits for it; only later ticks wake us.
    const next = guard('arm', () => jobs.earliest(phase.tag === 'running' ? now : undefined));
    wake.set(wakeIn(phase, next, now), onTimer);
  }

  function onTimer(): void {
    if (!isStarted(phase)) return;
    guard('sync', materialize);
    const now = clock.now();
    const running = phase;
    if (running.tag === 'running') guard('overlap', () => skipOverlapping(running, now));
    else launch(guard('due', () => dueItems(now)) ?? []);
    arm();
  }

  function skipOverlapping(running: { since: number; job?: DueJob }, now: number): void {
    for (const job of jobs.cronDueBetween(running.since, now)) {
      const nextRunAt = jobs.skipTo(job.id, now);
      log.info(
        {
          event: 'job_skipped_overlap',
          jobId: job.id,
          pack: job.pack,
          dueAt: iso(job.nextRunAt),
          runningJobId: running.job?.id,
        },
        `job ${job.id} skipped: another job is running; next ${iso(nextRunAt)}`,
      );
    }
  }

  function launch(items: Item[]): void {
    if (items.length === 0 || phase.tag !== 'waiting') return;
    const round = settled();
    phase = launched(phase, { since: clock.now(), done: round.promise });
    drain(items).then(round.resolve, round.reject);
  }

  /** Runs `items`, then whatever fell due meanwhile (one-shots that waited), until none. */
  async function drain(items: Item[]): Promise<void> {
    const tried = new Set<string>();
    let startedRuns = 0;
    try {
      let round = items;
      while (round.length > 0) {
        for (const item of round) {
          if (phase.tag !== 'running') return;
          tried.add(`${item.job.id}@${item.dueAt}`);
          if (await runOne(item)) startedRuns++;
        }
        const now = clock.now();
        phase = roundEnded(phase, now);
        round = dueItems(now).filter((i) => !tried.has(`${i.job.id}@${i.dueAt}`));
      }
    } catch (error) {
      log.error({ event: 'scheduler_error', step: 'drain', err: error }, 'scheduler: run failed');
    } finally {
      phase = drained(phase, startedRuns);
      arm();
    }
  }

  /** Claims, runs and acknowledges one run; false when it could not be claimed. */
  async function runOne({ job, dueAt }: Item): Promise<boolean> {
    const row = guard('claim', () => jobs.claim(job.id, dueAt));
    if (!row) return false;
    const due: DueJob = { ...row, dueAt };
    phase = claimed(phase, due);
    const startedAt = clock.now();
    let outcome: RunOutcome | 'interrupted' = 'failed';
    let error: unknown;
    try {
      outcome = await deps.run(due, () => guard('start', () => jobs.startRun(job.id, dueAt)));
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
      if (phase.tag !== 'new') return;
      phase = started(phase, jobs.onChange(arm));
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
      if (!isStarted(phase) || soon.isSet()) return;
      soon.set(0, () => {
        if (isStarted(phase)) this.sync();
      });
    },

    async stop() {
      const was = phase;
      phase = stopped(phase);
      if (isStarted(was)) was.unsubscribe();
      wake.clear();
      soon.clear();
      await roundDone(phase);
    },

    async idle() {
      await roundDone(phase);
    },

    next: (address) => listing.next(address),

    list(address) {
      return jobs.forAddress(address);
    },

    describe: (address) => listing.describe(address),
  };
}

/** A promise settled by hand: a round's end, known before the round's first step runs. */
function settled() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
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
