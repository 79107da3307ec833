import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Address } from '../../src/core/types.ts';
import { describeJobs } from '../../src/scheduler/describe.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createJobRepo, type JobRepo, type ManifestJob } from '../../src/store/job-repo.ts';

const TZ = 'Europe/Berlin';
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0); // Sunday 22 Nov 2026, 13:00 in Berlin
const HOUR = 3_600_000;
const chat = { platform: 'tg' as const, chatId: '42' };
const topic = { platform: 'tg' as const, chatId: '42', threadId: '7' };

let home: string;
let core: CoreStore;
let jobs: JobRepo;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'satchel-jobs-'));
  core = openCoreStore(home);
  jobs = createJobRepo(core.db, { timezone: TZ });
});
afterEach(() => {
  core.close();
  rmSync(home, { recursive: true, force: true });
});

const cron = (schedule: string, nextRunAt: number | null, to: Address = chat) =>
  jobs.create({ pack: 'alpha', to, kind: 'cron', schedule, nextRunAt, skill: 'alpha_one' }, T0);

const entry = (cronId: string, to = chat, schedule = '0 8 * * *'): ManifestJob => ({
  pack: 'alpha',
  cronId,
  to,
  schedule,
  skill: 'alpha_one',
  enabled: true,
});

describe('job repo', () => {
  it('claims a run durably and acknowledges it once, moving a cron job to its next tick', () => {
    const dueAt = Date.UTC(2026, 10, 23, 7, 0); // Mon 08:00 Berlin
    const job = cron('0 8 * * *', dueAt);
    expect(jobs.claim(job.id, dueAt + 1)).toBeUndefined(); // not the job's due time
    // A claim is not an attempt: only a run whose turn starts counts one.
    expect(jobs.claim(job.id, dueAt)).toMatchObject({ runningDueAt: dueAt, runAttempts: 0 });
    expect(jobs.claim(job.id, dueAt)).toMatchObject({ runningDueAt: dueAt, runAttempts: 0 });
    jobs.startRun(job.id, dueAt + 1); // not the claimed run
    expect(jobs.claimed()).toMatchObject([{ id: job.id, runAttempts: 0 }]);
    jobs.startRun(job.id, dueAt);
    expect(jobs.claimed()).toMatchObject([{ id: job.id, runAttempts: 1 }]);
    expect(jobs.due(dueAt + HOUR)).toEqual([]); // a running job is not due again
    expect(jobs.earliest()).toBeUndefined();

    const now = dueAt + 5 * 60_000;
    expect(jobs.finishRun(job.id, dueAt, now)).toBe(true);
    expect(jobs.finishRun(job.id, dueAt, now)).toBe(false); // idempotent
    const row = core.sqlite.prepare('SELECT * FROM jobs WHERE id = ?').get(job.id);
    expect(row).toMatchObject({
      running_due_at: null,
      run_attempts: 0,
      last_run_at: now,
      next_run_at: Date.UTC(2026, 10, 24, 7, 0),
    });
  });

  it('removes a one-shot when its run is acknowledged', () => {
    const at = T0 + HOUR;
    const job = jobs.create(
      { pack: 'alpha', to: chat, kind: 'once', schedule: 'x', nextRunAt: at, prompt: 'Tea' },
      T0,
    );
    expect(jobs.due(at).map((j) => j.id)).toEqual([job.id]);
    jobs.claim(job.id, at);
    expect(jobs.finishRun(job.id, at, at + 10)).toBe(true);
    expect(core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
  });

  it('keeps each chat and topic apart, and tells the scheduler about tool changes', () => {
    let changes = 0;
    jobs.onChange(() => changes++);
    const inChat = cron('0 8 * * *', T0 + 2 * HOUR);
    const inTopic = cron('0 9 * * *', T0 + HOUR, topic);
    expect(jobs.list('alpha', chat).map((j) => j.id)).toEqual([inChat.id]);
    expect(jobs.list('alpha', topic).map((j) => j.id)).toEqual([inTopic.id]);
    const local = { platform: 'local', chatId: '42' };
    expect(jobs.list('alpha', local)).toEqual([]); // another channel's chat 42
    expect(jobs.forAddress(local)).toEqual([]);
    expect(jobs.remove(inChat.id, 'alpha', topic)).toBe(false);
    expect(jobs.setEnabled(inTopic.id, 'beta', topic, false, T0)).toBe(false);
    expect(jobs.setEnabled(inTopic.id, 'alpha', topic, false, T0)).toBe(true);
    expect(jobs.earliest()).toBe(T0 + 2 * HOUR); // a paused job is not armed
    expect(changes).toBe(3);
    expect(jobs.find(inChat.id, 'alpha', chat)?.platform).toBe('tg');

    // Resumed later, a cron job continues from its next tick, without catching up.
    expect(jobs.setEnabled(inTopic.id, 'alpha', topic, true, T0 + 48 * HOUR)).toBe(true);
    expect(jobs.find(inTopic.id, 'alpha', topic)?.nextRunAt).toBe(Date.UTC(2026, 10, 25, 8, 0));
  });

  it("pauses a topic's jobs with a reason, and resumes only those paused for it", () => {
    const changes: string[] = [];
    jobs.onChange(() => changes.push('changed'));
    const fern = cron('0 8 * * *', T0 + HOUR, topic);
    const repot = cron('0 9 * * *', T0 + HOUR, topic);
    const elsewhere = cron('0 8 * * *', T0 + HOUR, chat);
    const other = cron('0 8 * * *', T0 + HOUR, { ...topic, threadId: '8' });
    expect(jobs.setEnabled(repot.id, 'alpha', topic, false, T0)).toBe(true);
    changes.length = 0;

    expect(jobs.pauseAt(topic, 'topic_closed')).toBe(1);
    expect(jobs.pauseAt(topic, 'topic_closed')).toBe(0); // nothing left to pause
    expect(changes).toEqual(['changed']);
    const state = (id: string) => {
      const job = jobs.forAddress(topic).find((j) => j.id === id) ?? jobs.find(id, 'alpha', chat);
      return [job?.enabled, job?.pausedBy];
    };
    expect([fern, repot, elsewhere].map((j) => state(j.id))).toEqual([
      [false, 'topic_closed'],
      [false, null],
      [true, null],
    ]);
    expect(jobs.find(other.id, 'alpha', { ...topic, threadId: '8' })?.enabled).toBe(true);
    expect(describeJobs(jobs.forAddress(topic), TZ, T0)).toContain(
      `${fern.id}: "0 8 * * *", skill alpha_one — paused while its topic is closed`,
    );
    expect(describeJobs(jobs.forAddress(topic), TZ, T0)).toContain(
      `${repot.id}: "0 9 * * *", skill alpha_one — paused\n`,
    );

    // Another reason's pauses are not resumed; the close's are, from their next tick.
    expect(jobs.resumeAt(topic, 'topic_gone', T0 + 2 * HOUR)).toBe(0);
    const later = Date.UTC(2026, 10, 23, 9, 0); // Mon 10:00 Berlin, past Monday's 08:00
    expect(jobs.resumeAt(topic, 'topic_closed', later)).toBe(1);
    expect(jobs.find(fern.id, 'alpha', topic)).toMatchObject({
      enabled: true,
      pausedBy: null,
      nextRunAt: Date.UTC(2026, 10, 24, 7, 0), // Tue 08:00 Berlin
    });
    expect(jobs.find(repot.id, 'alpha', topic)).toMatchObject({ enabled: false, pausedBy: null });

    // A job the user pauses again after a topic paused it is theirs: it stays paused.
    jobs.pauseAt(topic, 'topic_gone');
    jobs.setEnabled(fern.id, 'alpha', topic, false, later);
    expect(jobs.resumeAt(topic, 'topic_gone', later)).toBe(0);
    expect(describeJobs([jobs.find(fern.id, 'alpha', topic)!], TZ, later)).toContain('— paused\n');
  });

  it('materializes manifest entries idempotently and keeps tool jobs and user pauses', () => {
    const tool = cron('0 7 * * *', T0 + HOUR);
    expect(jobs.syncManifest([entry('water'), entry('water', topic)], T0)).toEqual({
      added: 2,
      updated: 0,
      removed: 0,
    });
    const rows = () =>
      core.sqlite
        .prepare('SELECT id, manifest_key, enabled, schedule FROM jobs ORDER BY manifest_key')
        .all();
    const first = rows();
    expect(first.map((r) => (r as { manifest_key: string }).manifest_key)).toEqual([
      null,
      'alpha:water:tg:42',
      'alpha:water:tg:42:7',
    ]);
    expect(jobs.syncManifest([entry('water'), entry('water', topic)], T0)).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
    });
    expect(rows()).toEqual(first);

    const water = jobs.list('alpha', chat).find((j) => j.source === 'manifest')!;
    jobs.setEnabled(water.id, 'alpha', chat, false, T0);
    const counts = jobs.syncManifest([entry('water', chat, '0 9 * * *')], T0);
    expect(counts).toEqual({ added: 0, updated: 1, removed: 1 });
    expect(jobs.find(water.id, 'alpha', chat)).toMatchObject({
      schedule: '0 9 * * *',
      enabled: false,
      nextRunAt: Date.UTC(2026, 10, 23, 8, 0),
    });
    expect(jobs.find(tool.id, 'alpha', chat)).toBeDefined();
  });
});
