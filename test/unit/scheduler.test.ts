import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/ports.ts';
import type { Address } from '../../src/core/types.ts';
import { describeJobs } from '../../src/scheduler/describe.ts';
import {
  type BoundRoute,
  createScheduler,
  type DueJob,
  type ManifestCron,
  type Scheduler,
  type SchedulerDeps,
} from '../../src/scheduler/scheduler.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createJobRepo, type JobRepo, type RunOutcome } from '../../src/store/job-repo.ts';
import { nextCronRun, parseSchedule } from '../../src/time/next-run.ts';
import { FakeClock } from '../support/fake-clock.ts';

const TZ = 'Europe/Berlin';
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0); // Sunday 22 Nov 2026, 13:00 in Berlin
const MIN = 60_000;
const HOUR = 60 * MIN;
const chat: Address = { platform: 'tg', chatId: '42' };
const topic: Address = { platform: 'tg', chatId: '42', threadId: '7' };

let home: string;
let core: CoreStore;
let jobs: JobRepo;
let clock: FakeClock;
let lines: Array<Record<string, unknown>>;
const running: Scheduler[] = [];

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'satchel-scheduler-'));
  core = openCoreStore(home);
  jobs = createJobRepo(core.db, { timezone: TZ });
  clock = new FakeClock(T0);
  lines = [];
});
afterEach(() => {
  for (const s of running.splice(0)) void s.stop();
  core.close();
  rmSync(home, { recursive: true, force: true });
});

const log: Logger = {
  debug: () => {},
  info: (o) => void lines.push(o as Record<string, unknown>),
  warn: (o) => void lines.push(o as Record<string, unknown>),
  error: (o) => void lines.push(o as Record<string, unknown>),
  child: () => log,
};
const events = (event: string) => lines.filter((l) => l.event === event);

interface Calls {
  runs: DueJob[];
}

/** A run like the pipeline's: it acknowledges the run (in its reply's transaction). */
function acking(calls: Calls, outcome: RunOutcome = 'delivered', onClock = () => clock) {
  return async (job: DueJob) => {
    calls.runs.push(job);
    jobs.finishRun(job.id, job.dueAt, onClock().now());
    return outcome;
  };
}

function deferred() {
  let resolve!: (outcome: RunOutcome) => void;
  const promise = new Promise<RunOutcome>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function scheduler(deps: Partial<SchedulerDeps> & Pick<SchedulerDeps, 'run'>, on = clock) {
  const s = createScheduler({
    jobs,
    clock: on,
    log,
    timezone: TZ,
    routes: () => [],
    manifestJobs: () => [],
    ...deps,
  });
  running.push(s);
  return s;
}

const cronJob = (schedule: string, to = chat, prompt = 'Check in') =>
  jobs.create(
    { pack: 'alpha', to, prompt, ...parseSchedule(schedule, TZ, clock.now()) },
    clock.now(),
  );
const once = (at: number, to = chat, prompt = 'Reminder') =>
  jobs.create(
    {
      pack: 'alpha',
      to,
      kind: 'once',
      schedule: new Date(at).toISOString(),
      nextRunAt: at,
      prompt,
    },
    clock.now(),
  );
/**
 * Lets `ms` pass a minute at a time, letting each run finish before the next minute: a
 * single `advance` would fire every timer at once, before any run could end.
 */
async function elapse(s: Scheduler, ms: number, on = clock) {
  for (let left = ms; left > 0; left -= MIN) {
    on.advance(Math.min(MIN, left));
    await s.idle();
  }
}

const count = () =>
  (core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;

describe('next run times', () => {
  it('reads cron expressions in the configured zone, across a DST change', () => {
    expect(nextCronRun('0 8 * * *', TZ, T0)).toBe(Date.UTC(2026, 10, 23, 7, 0));
    expect(nextCronRun('0 8 * * *', 'America/New_York', T0)).toBe(Date.UTC(2026, 10, 22, 13, 0));
    // Berlin moves to summer time on 29 March 2026: 08:00 is then 06:00 UTC.
    const spring = Date.UTC(2026, 2, 28, 12, 0);
    expect(nextCronRun('0 8 * * *', TZ, spring)).toBe(Date.UTC(2026, 2, 29, 6, 0));
    expect(parseSchedule(' 30 7  * * 1-5 ', TZ, T0)).toEqual({
      kind: 'cron',
      schedule: '30 7 * * 1-5',
      nextRunAt: Date.UTC(2026, 10, 23, 6, 30),
    });
    expect(parseSchedule('2026-11-23T18:00:00+01:00', TZ, T0)).toEqual({
      kind: 'once',
      schedule: '2026-11-23T18:00:00+01:00',
      nextRunAt: Date.UTC(2026, 10, 23, 17, 0),
    });
  });
});

describe('scheduler', () => {
  it('runs a one-shot once at its time, then removes it', async () => {
    const calls: Calls = { runs: [] };
    const job = once(T0 + 90 * MIN);
    const s = scheduler({ run: acking(calls) });
    s.start();
    clock.advance(89 * MIN);
    expect(calls.runs).toEqual([]);
    clock.advance(MIN);
    await s.idle();
    expect(calls.runs).toMatchObject([{ id: job.id, dueAt: T0 + 90 * MIN, prompt: 'Reminder' }]);
    expect(count()).toBe(0);
    expect(events('job_run')).toMatchObject([
      { jobId: job.id, pack: 'alpha', outcome: 'delivered', ms: 0 },
    ]);
    clock.advance(48 * HOUR);
    await s.idle();
    expect(calls.runs).toHaveLength(1);
  });

  it('runs a cron job on each tick and records the run', async () => {
    const calls: Calls = { runs: [] };
    const job = cronJob('0 14 * * *'); // 13:00 UTC
    const s = scheduler({ run: acking(calls, 'silent') });
    s.start();
    clock.advance(HOUR);
    await s.idle();
    clock.advance(24 * HOUR);
    await s.idle();
    expect(calls.runs.map((r) => r.dueAt)).toEqual([T0 + HOUR, T0 + 25 * HOUR]);
    expect(core.sqlite.prepare('SELECT * FROM jobs WHERE id = ?').get(job.id)).toMatchObject({
      last_run_at: T0 + 25 * HOUR,
      last_outcome: 'silent',
      next_run_at: T0 + 49 * HOUR,
      running_due_at: null,
    });
  });

  it("materializes a pack's cron entries for each bound conversation, idempotently", async () => {
    const calls: Calls = { runs: [] };
    const tool = cronJob('0 7 * * *');
    let routes: BoundRoute[] = [
      { chatId: '42', threadId: null, pack: 'alpha' },
      { chatId: '42', threadId: '7', pack: 'alpha' },
      { chatId: '43', threadId: null, pack: 'beta' },
    ];
    let alpha: ManifestCron[] = [
      { id: 'water-check', schedule: '0 8 * * *', skill: 'alpha_one', enabled: true },
      { id: 'digest', schedule: '0 20 * * 0', skill: 'alpha_two', enabled: false },
    ];
    const s = scheduler({
      run: acking(calls),
      routes: () => routes,
      manifestJobs: (pack) => (pack === 'alpha' ? alpha : []),
    });
    s.start();
    const keys = () =>
      core.sqlite
        .prepare("SELECT manifest_key AS key, enabled FROM jobs WHERE source = 'manifest'")
        .all()
        .map(
          (r) => `${(r as { key: string }).key}${(r as { enabled: number }).enabled ? '' : ' off'}`,
        )
        .sort();
    expect(keys()).toEqual([
      'alpha:digest:tg:42 off',
      'alpha:digest:tg:42:7 off',
      'alpha:water-check:tg:42',
      'alpha:water-check:tg:42:7',
    ]);
    const ids = core.sqlite.prepare('SELECT id FROM jobs ORDER BY id').all();
    s.sync();
    expect(core.sqlite.prepare('SELECT id FROM jobs ORDER BY id').all()).toEqual(ids);

    // A conversation bound later gets the jobs; a removed entry or binding loses them.
    routes = [...routes.slice(1), { chatId: '44', threadId: null, pack: 'alpha' }];
    alpha = alpha.slice(0, 1);
    s.sync();
    expect(keys()).toEqual(['alpha:water-check:tg:42:7', 'alpha:water-check:tg:44']);
    expect(jobs.find(tool.id, 'alpha', chat)).toBeDefined();

    // Both conversations' 08:00 runs are due together: they run one after the other.
    await elapse(s, 19 * HOUR); // 07:00 UTC = 08:00 Berlin
    expect(calls.runs.map((r) => [r.chatId, r.threadId, r.skill])).toEqual([
      ['42', null, null], // the tool job, at 07:00 Berlin
      ['42', '7', 'alpha_one'],
      ['44', null, 'alpha_one'],
    ]);
    expect(s.next(topic)).toBe(Date.UTC(2026, 10, 24, 7, 0));
    expect(s.next(chat)).toBe(Date.UTC(2026, 10, 24, 6, 0)); // the tool job, 07:00 Berlin
  });

  it('syncs a newly bound conversation on the next tick, once for a burst of them', () => {
    const routes: BoundRoute[] = [];
    const water: ManifestCron = { id: 'water', schedule: '0 8 * * *', skill: 'a', enabled: true };
    const s = scheduler({
      run: acking({ runs: [] }),
      routes: () => routes,
      manifestJobs: () => [water],
    });
    s.syncSoon(); // not started: start syncs
    s.start();
    const count = () => core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get();
    for (const chatId of [51, 52, 53]) {
      routes.push({ chatId: String(chatId), threadId: null, pack: 'alpha' });
      s.syncSoon();
    }
    expect(count()).toEqual({ n: 0 });
    clock.advance(0);
    expect(count()).toEqual({ n: 3 });
    expect(events('jobs_synced')).toEqual([expect.objectContaining({ added: 3 })]);
  });

  it('does not catch up on a missed cron tick: it logs job_missed', async () => {
    const calls: Calls = { runs: [] };
    const job = cronJob('0 14 * * *'); // due T0 + 1 h, while satchel is stopped
    clock.advance(3 * HOUR);
    const s = scheduler({ run: acking(calls) });
    s.start();
    await s.idle();
    expect(calls.runs).toEqual([]);
    expect(events('job_missed')).toMatchObject([
      { jobId: job.id, pack: 'alpha', missedAt: new Date(T0 + HOUR).toISOString() },
    ]);
    expect(jobs.find(job.id, 'alpha', chat)?.nextRunAt).toBe(T0 + 25 * HOUR);
    clock.advance(22 * HOUR);
    await s.idle();
    expect(calls.runs.map((r) => r.dueAt)).toEqual([T0 + 25 * HOUR]);
  });

  it('runs a one-shot that fell due while stopped once after the start', async () => {
    const calls: Calls = { runs: [] };
    const job = once(T0 + HOUR);
    clock.advance(5 * HOUR);
    const s = scheduler({ run: acking(calls) });
    s.start();
    await s.idle();
    expect(calls.runs).toMatchObject([{ id: job.id, dueAt: T0 + HOUR }]);
    expect(count()).toBe(0);
    const again = scheduler({ run: acking(calls) });
    again.start();
    await again.idle();
    expect(calls.runs).toHaveLength(1);
  });

  it('runs a run that a crash interrupted again, exactly once', async () => {
    const job = cronJob('0 14 * * *');
    const first: Calls = { runs: [] };
    const crashed = scheduler({
      run: async (j) => {
        first.runs.push(j);
        return new Promise<RunOutcome>(() => {}); // the process dies during the run
      },
    });
    crashed.start();
    clock.advance(HOUR);
    expect(first.runs).toHaveLength(1);
    running.splice(0); // never stopped: the process is gone

    const restart = new FakeClock(T0 + 2 * HOUR);
    const second: Calls = { runs: [] };
    const s = scheduler({ run: acking(second, 'delivered', () => restart) }, restart);
    s.start();
    await s.idle();
    expect(second.runs).toMatchObject([{ id: job.id, dueAt: T0 + HOUR }]);
    expect(events('job_resumed')).toMatchObject([{ jobId: job.id }]);
    expect(events('job_missed')).toEqual([]);
    expect(jobs.find(job.id, 'alpha', chat)).toMatchObject({
      runningDueAt: null,
      nextRunAt: T0 + 25 * HOUR,
    });

    const third = scheduler({ run: acking(second) }, new FakeClock(T0 + 3 * HOUR));
    third.start();
    await third.idle();
    expect(second.runs).toHaveLength(1);
  });

  it('gives up a run whose turn was interrupted twice', async () => {
    const job = once(T0 + HOUR);
    // The turn starts, then the process dies during it.
    const dies = async (_job: DueJob, started: () => void) => {
      started();
      return new Promise<RunOutcome>(() => {});
    };
    scheduler({ run: dies }).start();
    clock.advance(HOUR);
    scheduler({ run: dies }, new FakeClock(T0 + 2 * HOUR)).start();
    running.splice(0);

    const calls: Calls = { runs: [] };
    const s = scheduler({ run: acking(calls) }, new FakeClock(T0 + 3 * HOUR));
    s.start();
    await s.idle();
    expect(calls.runs).toEqual([]);
    expect(events('job_resumed')).toMatchObject([{ jobId: job.id, attempts: 1 }]);
    expect(events('job_run')).toMatchObject([
      { jobId: job.id, outcome: 'failed', reason: 'interrupted twice' },
    ]);
    expect(count()).toBe(0);
  });

  it('still runs a one-shot that was merely due during two crashes', async () => {
    const job = once(T0 + HOUR);
    // Claimed, waiting for its conversation (its turn never starts) when the process dies.
    const waits = async () => new Promise<RunOutcome>(() => {});
    scheduler({ run: waits }).start();
    clock.advance(HOUR);
    scheduler({ run: waits }, new FakeClock(T0 + 2 * HOUR)).start();
    running.splice(0);
    expect(jobs.claimed()).toMatchObject([{ id: job.id, runningDueAt: T0 + HOUR, runAttempts: 0 }]);

    const calls: Calls = { runs: [] };
    const restart = new FakeClock(T0 + 3 * HOUR);
    const s = scheduler({ run: acking(calls, 'delivered', () => restart) }, restart);
    s.start();
    await s.idle();
    expect(calls.runs).toMatchObject([{ id: job.id, dueAt: T0 + HOUR, prompt: 'Reminder' }]);
    expect(events('job_run')).toMatchObject([{ jobId: job.id, outcome: 'delivered' }]);
    expect(count()).toBe(0);
  });

  it('skips a tick that falls due while another job runs; a one-shot waits for it', async () => {
    const slow = cronJob('0 14 * * *', chat, 'slow'); // 13:00 UTC
    const overlapped = cronJob('30 14 * * *', chat, 'overlapped'); // 13:30 UTC
    const reminder = once(T0 + HOUR + 45 * MIN, chat, 'reminder');
    const order: string[] = [];
    const gate = deferred();
    const s = scheduler({
      run: async (job) => {
        order.push(job.prompt!);
        if (job.id === slow.id) return gate.promise;
        jobs.finishRun(job.id, job.dueAt, clock.now());
        return 'delivered';
      },
    });
    s.start();
    clock.advance(2 * HOUR);
    expect(order).toEqual(['slow']);
    expect(events('job_skipped_overlap')).toMatchObject([
      {
        jobId: overlapped.id,
        pack: 'alpha',
        dueAt: new Date(T0 + 90 * MIN).toISOString(),
        runningJobId: slow.id,
      },
    ]);
    expect(jobs.find(overlapped.id, 'alpha', chat)?.nextRunAt).toBe(T0 + 25 * HOUR + 30 * MIN);

    gate.resolve('delivered');
    await s.idle();
    expect(order).toEqual(['slow', 'reminder']);
    expect(jobs.find(reminder.id, 'alpha', chat)).toBeUndefined();
    expect(events('job_run').map((l) => [l.jobId, l.outcome, l.ms])).toEqual([
      [slow.id, 'delivered', HOUR],
      [reminder.id, 'delivered', 0],
    ]);
  });

  it('keeps going after a job throws: the run counts as failed and is not retried', async () => {
    const broken = cronJob('0 14 * * *', chat, 'broken');
    const fine = cronJob('0 15 * * *', chat, 'fine');
    const brokenOnce = once(T0 + 90 * MIN, chat, 'broken once');
    const ran: string[] = [];
    const s = scheduler({
      run: async (job) => {
        ran.push(job.prompt!);
        if (job.prompt!.startsWith('broken')) throw new Error('provider exploded');
        jobs.finishRun(job.id, job.dueAt, clock.now());
        return 'delivered';
      },
    });
    s.start();
    await elapse(s, 3 * HOUR);
    expect(ran).toEqual(['broken', 'broken once', 'fine']);
    expect(events('job_run').map((l) => [l.jobId, l.outcome, Boolean(l.err)])).toEqual([
      [broken.id, 'failed', true],
      [brokenOnce.id, 'failed', true],
      [fine.id, 'delivered', false],
    ]);
    expect(jobs.find(broken.id, 'alpha', chat)).toMatchObject({
      runningDueAt: null,
      lastOutcome: 'failed',
      nextRunAt: T0 + 25 * HOUR,
    });
    expect(jobs.find(brokenOnce.id, 'alpha', chat)).toBeUndefined();
    expect(describeJobs(s.list(chat), TZ, clock.now())).toBe(
      [
        `- ${broken.id}: "0 14 * * *", "broken" — next tomorrow 14:00; last run failed`,
        `- ${fine.id}: "0 15 * * *", "fine" — next tomorrow 15:00`,
        'Times are in Europe/Berlin.',
      ].join('\n'),
    );
  });

  it('stop() waits for the running job and starts nothing after', async () => {
    const calls: Calls = { runs: [] };
    const gate = deferred();
    cronJob('0 14 * * *');
    once(T0 + HOUR, chat, 'same time');
    const s = scheduler({
      run: async (job) => {
        calls.runs.push(job);
        return calls.runs.length === 1 ? gate.promise : 'delivered';
      },
    });
    s.start();
    clock.advance(HOUR);
    let stopped = false;
    const stopping = s.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    expect(clock.pending()).toBe(0);
    gate.resolve('delivered');
    await stopping;
    expect(stopped).toBe(true);
    expect(calls.runs).toHaveLength(1);
    clock.advance(48 * HOUR);
    expect(calls.runs).toHaveLength(1);
  });

  it('wakes for a job the schedule tool creates while it waits', async () => {
    const calls: Calls = { runs: [] };
    const s = scheduler({ run: acking(calls) });
    s.start();
    clock.advance(10 * MIN);
    const job = once(clock.now() + 5 * MIN, topic);
    clock.advance(5 * MIN);
    await s.idle();
    expect(calls.runs).toMatchObject([{ id: job.id, threadId: '7' }]);
    expect(s.next(topic)).toBeUndefined();
  });
});

describe('scheduler lifecycle', () => {
  it('new → stopped: a stopped scheduler never starts, syncs or arms a timer', async () => {
    const calls: Calls = { runs: [] };
    once(T0 + MIN);
    const s = scheduler({ run: acking(calls) });
    await s.stop();
    s.start();
    s.syncSoon();
    s.sync();
    expect(clock.pending()).toBe(0);
    clock.advance(HOUR);
    await s.idle();
    expect(calls.runs).toEqual([]);
  });

  it('starts once: a second start runs nothing twice and adds no timer', async () => {
    const calls: Calls = { runs: [] };
    once(T0);
    const s = scheduler({ run: acking(calls) });
    s.start();
    s.start();
    await s.idle();
    expect(calls.runs).toHaveLength(1);
    expect(clock.pending()).toBe(1);
  });

  it('waiting → stopped: stop clears the timer and a pending syncSoon', async () => {
    const s = scheduler({ run: acking({ runs: [] }) });
    s.start();
    s.syncSoon();
    expect(clock.pending()).toBe(2);
    await s.stop();
    expect(clock.pending()).toBe(0);
    s.syncSoon();
    expect(clock.pending()).toBe(0);
  });

  it('a round that could start nothing tries again a second later, not in a loop', async () => {
    const calls: Calls = { runs: [] };
    let claims = 0;
    const refusing: JobRepo = {
      ...jobs,
      claim: () => {
        claims++;
        return undefined; // claimed elsewhere, say
      },
    };
    once(T0 + MIN);
    const s = scheduler({ run: acking(calls), jobs: refusing });
    s.start();
    clock.advance(MIN);
    await s.idle();
    expect(claims).toBe(1);
    expect(clock.dueTimes()).toEqual([T0 + MIN + 1000]);
    clock.advance(999);
    expect(claims).toBe(1);
    clock.advance(1);
    await s.idle();
    expect(claims).toBe(2);
    expect(calls.runs).toEqual([]);
  });
});
