/**
 * Schedules are bounded (SPEC §8), end to end against a model that calls `schedule` create
 * on every call it gets: a job's own run cannot create jobs unless the pack's manifest sets
 * `jobs_may_schedule: true`, and a pack keeps at most `MAX_JOBS` jobs in a chat. Each
 * refusal is a tool result the model reads.
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPEATED_FAILURE } from '../../src/tools/trust/loop-breaker.ts';
import type { RecordedRequest } from '../fakes/model-server.ts';
import {
  ALLOWED_USER,
  fixturePacks,
  type Harness,
  settled,
  startHarness,
} from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const MIN = 60_000;
let h: Harness;
let clock: JumpClock;

afterEach(async () => {
  await h?.close();
});

/** 10:00 UTC on a Monday; the alpha pack's manifest job runs daily at 08:00. */
async function start(env: Record<string, string> = {}, extraManifest = '') {
  clock = new JumpClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  h = await startHarness(
    { SATCHEL_PACKS: fixturePacks(['alpha'], extraManifest), ...env },
    { app: { clock } },
  );
}

const say = (text: string) => h.tg.text({ userId: ALLOWED_USER, text });
const create = (schedule: string, prompt = 'Check on the fern, then schedule this again.') => ({
  name: 'schedule',
  arguments: { action: 'create', schedule, prompt },
});
/** A model that answers every call with another `schedule` create. */
const breeding = () => h.model.setDefault({ toolCalls: [create('* * * * *')] });

/** Tool results the model received, in order (OpenAI format). */
const toolResults = (request: RecordedRequest): string[] =>
  (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
const jobCount = () =>
  h.rows<{ n: number }>(
    'SELECT count(*) AS n FROM jobs WHERE chat_id = ?',
    String(ALLOWED_USER),
  )[0]!.n;
const runs = () => h.logs('job_run');

/** Waits until `count` job runs ended, with nothing left to send. */
async function ranTimes(count: number): Promise<void> {
  await vi.waitFor(
    () => {
      expect(runs()).toHaveLength(count);
      expect(h.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toEqual([]);
    },
    { timeout: 10_000, interval: 25 },
  );
}

/** The user's turn binds the chat to alpha (and so its manifest job), and asks for a job. */
async function remindAt(iso: string) {
  h.model.enqueue({ toolCalls: [create(iso)] }, { text: 'I will check on the fern.' });
  say('check on the fern in a minute');
  await settled(h, 1);
  await vi.waitFor(() => expect(jobCount()).toBe(2)); // the one-shot and the manifest job
}

describe('schedule limits', () => {
  it("stops a chain at its first link: a job's run cannot create jobs", async () => {
    await start();
    await remindAt('2026-11-23T10:01:00Z');
    breeding();
    clock.advance(2 * MIN);
    await ranTimes(1);

    // The run called create until the loop breaker took its tools away (SPEC §17): two
    // refusals, three repeats not run, then an answer without tools.
    const requests = h.model.chatRequests().slice(2);
    expect(requests).toHaveLength(6);
    expect(requests.at(-1)!.body.tools).toBeUndefined();
    expect(toolResults(requests.at(-1)!)).toEqual([
      ...Array(2).fill(
        "Error: a scheduled job's run cannot create jobs (this pack's manifest does not set jobs_may_schedule: true). If a new job is needed, say so in your answer and the user can ask for it in the chat.",
      ),
      ...Array(3).fill(REPEATED_FAILURE),
    ]);
    expect(h.logs('tool_loop_stopped')).toHaveLength(1);
    // Only the manifest job is left: the one-shot ran and was removed, nothing was added,
    // so nothing else will run.
    expect(h.rows('SELECT source FROM jobs')).toEqual([{ source: 'manifest' }]);
  });

  it('with jobs_may_schedule, MAX_JOBS caps the chain and cron runs at most once a minute', async () => {
    await start({ MAX_JOBS: '3' }, 'jobs_may_schedule: true\n');
    await remindAt('2026-11-23T10:01:00Z');
    breeding();
    const full =
      'Error: this pack already has 3 scheduled jobs in this chat, the most it may have (MAX_JOBS = 3). To free a slot, remove a job that is no longer needed (action "remove" with its id; "list" shows them), or ask the user which one to drop.';

    clock.advance(2 * MIN); // the one-shot runs and creates one "* * * * *" job; then it is full
    await ranTimes(1);
    const first = toolResults(h.model.chatRequests().at(-1)!);
    expect(first[0]).toMatch(/^created job \S+: "\* \* \* \* \*" in UTC; its next run is/);
    expect(first.slice(1)).toEqual([full, full, ...Array(3).fill(REPEATED_FAILURE)]);
    expect(jobCount()).toBe(2); // the manifest job and the new cron job

    clock.advance(MIN); // 10:03: the cron job runs and takes the one-shot's freed slot
    await ranTimes(2);
    expect(jobCount()).toBe(3);
    // 10:04 and 10:05: both cron jobs run once a minute, and every create is refused.
    for (const n of [4, 6]) {
      clock.advance(MIN);
      await ranTimes(n);
      expect(jobCount()).toBe(3);
      expect(toolResults(h.model.chatRequests().at(-1)!)).toContain(full);
    }
    const created = h.model
      .chatRequests()
      .flatMap((r) => toolResults(r))
      .filter((r) => r.startsWith('created job'));
    expect(new Set(created).size).toBe(3); // the user's one-shot and two cron jobs, ever
    // Every run ended by the loop breaker, not by the 20 model calls a turn may make.
    expect(h.logs('tool_loop_stopped')).toHaveLength(6);
    expect(h.model.chatRequests()).toHaveLength(2 + 7 + 7 + 4 * 6);
  });

  it("refuses a user's turn its job past MAX_JOBS, and says how to free a slot", async () => {
    await start({ MAX_JOBS: '3' });
    await remindAt('2026-11-23T12:00:00Z');
    h.model.enqueue(
      { toolCalls: [create('0 9 * * *'), create('0 10 * * *')] },
      { text: 'I could add one of them.' },
    );
    say('check on the fern at 9 and at 10 every day');
    await settled(h, 2);
    const [added, refused] = toolResults(h.model.chatRequests().at(-1)!).slice(-2);
    expect(added).toMatch(/^created job \S+: "0 9 \* \* \*"/);
    expect(refused).toBe(
      'Error: this pack already has 3 scheduled jobs in this chat, the most it may have (MAX_JOBS = 3). To free a slot, remove a job that is no longer needed (action "remove" with its id; "list" shows them), or ask the user which one to drop.',
    );
    expect(h.rows('SELECT schedule FROM jobs ORDER BY schedule')).toEqual([
      { schedule: '0 8 * * *' },
      { schedule: '0 9 * * *' },
      { schedule: '2026-11-23T12:00:00Z' },
    ]);
  });
});

describe('a job resuming itself', () => {
  it('is told its run is under way (a one-shot ends with it), not that it "runs now"', async () => {
    await start();
    await remindAt('2026-11-23T10:01:00Z');
    const { id } = h.rows<{ id: string }>("SELECT id FROM jobs WHERE source != 'manifest'")[0]!;
    h.model.enqueue(
      { toolCalls: [{ name: 'schedule', arguments: { action: 'resume', id } }] },
      { text: 'The fern is fine.' },
    );
    clock.advance(2 * MIN);
    await ranTimes(1);

    expect(toolResults(h.model.chatRequests()[3]!)).toEqual([
      `Error: job ${id} is running now, so there is nothing to resume: a one-shot job ends with its run and is then removed; to run it again, the user can ask for a new job`,
    ]);
    expect(h.rows('SELECT source FROM jobs')).toEqual([{ source: 'manifest' }]);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('The fern is fine.');
  });
});
