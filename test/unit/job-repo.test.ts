import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createJobRepo, type JobRepo, type ManifestJob } from '../../src/store/job-repo.ts';

const TZ = 'Europe/Berlin';
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0); // Sunday 22 Nov 2026, 13:00 in Berlin
const HOUR = 3_600_000;
const chat = { platform: 'tg' as const, chatId: 42 };
const topic = { platform: 'tg' as const, chatId: 42, threadId: 7 };

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

const cron = (schedule: string, nextRunAt: number | null, to = chat) =>
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
    const local = { platform: 'local', chatId: 42 };
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
