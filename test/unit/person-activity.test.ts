import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdleJobs } from '../../src/scheduler/idle.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createJobRepo, type JobRepo } from '../../src/store/job-repo.ts';
import {
  createPersonActivity,
  PERSON_WRITE_EVERY_MS,
  type PersonActivity,
} from '../../src/store/person-activity.ts';
import { silentLog } from '../support/usage-seed.ts';

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const DAY = 24 * 3_600_000;
const chat = { platform: 'tg' as const, chatId: '42' };
const topic = { platform: 'tg' as const, chatId: '42', threadId: '7' };

let home: string;
let core: CoreStore;
let activity: PersonActivity;
let jobs: JobRepo;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'satchel-activity-'));
  core = openCoreStore(home);
  activity = createPersonActivity(core.db);
  jobs = createJobRepo(core.db, { timezone: 'UTC' });
});
afterEach(() => {
  core.close();
  rmSync(home, { recursive: true, force: true });
});

const stored = (address: string) =>
  (
    core.sqlite
      .prepare('SELECT last_person_at AS at FROM conversation_routes WHERE address = ?')
      .get(address) as { at: number | null } | undefined
  )?.at;

const daily = (to = chat) =>
  jobs.create(
    { pack: 'alpha', to, kind: 'cron', schedule: '0 8 * * *', nextRunAt: T0 + DAY, skill: 'a' },
    T0,
  );

describe('person activity (SPEC §8)', () => {
  it('writes a conversation’s time at most once a minute, and pauses by the latest one', () => {
    const job = daily();
    activity.wrote(chat, T0);
    expect(stored('tg:42')).toBe(T0);
    const later = T0 + PERSON_WRITE_EVERY_MS - 1;
    activity.wrote(chat, later); // within the minute: kept in memory
    expect(stored('tg:42')).toBe(T0);

    // Two days after the first message, not after the second: the pause sees the second.
    expect(activity.pauseIdle(T0 + 1)).toEqual([]);
    expect(stored('tg:42')).toBe(later);
    expect(activity.pauseIdle(later + 1).map((j) => j.id)).toEqual([job.id]);

    activity.wrote(chat, later + PERSON_WRITE_EVERY_MS); // a minute on: written at once
    expect(stored('tg:42')).toBe(later + PERSON_WRITE_EVERY_MS);
  });

  it('keeps each conversation apart, and flush writes what is kept', () => {
    activity.wrote(chat, T0);
    activity.wrote(topic, T0 + 1);
    activity.wrote(chat, T0 + 2);
    expect([stored('tg:42'), stored('tg:42:7')]).toEqual([T0, T0 + 1]);
    activity.flush();
    expect([stored('tg:42'), stored('tg:42:7')]).toEqual([T0 + 2, T0 + 1]);
  });

  it('the idle jobs write the kept time when asked to flush (at shutdown)', () => {
    const idle = createIdleJobs({ activity, jobs, log: silentLog, days: 2 });
    idle.personWrote(chat, T0);
    idle.personWrote(chat, T0 + 1_000);
    expect(stored('tg:42')).toBe(T0);
    idle.flush();
    expect(stored('tg:42')).toBe(T0 + 1_000);
  });

  it('resumes only the jobs paused for idleness, and finds none cheaply where there are none', () => {
    const job = daily();
    expect(jobs.resumeAt(chat, 'idle', T0)).toBe(0);
    activity.wrote(chat, T0);
    activity.pauseIdle(T0 + 1);
    expect(jobs.resumeAt(topic, 'idle', T0 + 2)).toBe(0); // another conversation
    expect(jobs.resumeAt(chat, 'topic_closed', T0 + 2)).toBe(0); // another reason
    expect(jobs.resumeAt(chat, 'idle', T0 + 2)).toBe(1);
    expect(jobs.find(job.id, 'alpha', chat)).toMatchObject({ enabled: true, pausedBy: null });
  });
});
