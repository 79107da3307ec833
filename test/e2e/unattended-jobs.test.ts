/**
 * Unattended work must not burn money unseen (SPEC §8), end to end on the app's clock
 * (JumpClock), through the fake Bot API and the real OpenAI SDK: a chat's recurring jobs
 * pause when no person wrote there for JOB_IDLE_DAYS days, `/jobs` says why and what each
 * job cost, the next message from a person resumes them with a note, `/api/usage` has
 * `by_job`, and a cron entry may name its own model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ALLOWED_USER, fixturePacks, harnessPerTest } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { startWithUsageApi } from '../support/usage-api.ts';

const HOUR = 3_600_000;
const OTHER_USER = 222;
const h = harnessPerTest();
let clock: JumpClock;

/**
 * 10:00 UTC on a Monday, JOB_IDLE_DAYS=2; the alpha pack's daily job runs at 08:00 (with
 * `cronModel`, on that model). Jobs answer "Daily check." unless told otherwise.
 */
async function start(options: { cronModel?: string; env?: Record<string, string> } = {}) {
  clock = new JumpClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  const packs = fixturePacks(['alpha']);
  if (options.cronModel) {
    const manifest = path.join(packs, 'alpha', 'pack.yml');
    const text = readFileSync(manifest, 'utf8').replace(
      '    enabled: true\n',
      `    enabled: true\n    model: ${options.cronModel}\n`,
    );
    writeFileSync(manifest, text);
  }
  const api = await startWithUsageApi(
    h,
    {
      SATCHEL_PACKS: packs,
      JOB_IDLE_DAYS: '2',
      ALLOWED_USER_IDS: `${ALLOWED_USER},${OTHER_USER}`,
      ...options.env,
    },
    { clock },
  );
  h.model.setDefault({ text: 'Daily check.' });
  return api;
}

/**
 * `text` from `userId` in their private chat; resolves with the answer. (Counts answers, not
 * done updates: the inbox forgets done updates after a day, and these tests skip days.)
 */
async function ask(text: string, userId = ALLOWED_USER): Promise<string> {
  await vi.waitFor(() =>
    expect(h.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toEqual([]),
  );
  const before = h.tg.texts(userId).length;
  h.tg.text({ userId, text });
  await vi.waitFor(() => expect(h.tg.texts(userId).length).toBeGreaterThan(before), {
    timeout: 10_000,
  });
  return h.tg.texts(userId).at(-1)!;
}

const delivered = () => h.logs('job_run').filter((l) => l.outcome === 'delivered');
async function runs(count: number): Promise<void> {
  await vi.waitFor(() => expect(delivered()).toHaveLength(count), { timeout: 10_000 });
}
const jobOf = (chat: number) =>
  h.rows<{ id: string; enabled: number; paused_by: string | null }>(
    'SELECT id, enabled, paused_by FROM jobs WHERE chat_id = ?',
    String(chat),
  )[0]!;

describe('jobs of a chat nobody writes in (SPEC §8)', () => {
  it('pause after JOB_IDLE_DAYS, once; /jobs says why and what they cost; the next message resumes them', async () => {
    const api = await start();
    h.model.enqueue({ text: 'Hi.' });
    await ask('hello'); // Monday 10:00: a person wrote
    clock.advance(22 * HOUR); // Tuesday 08:00
    await runs(1);
    clock.advance(24 * HOUR); // Wednesday 08:00: 46 hours since, still under 2 days
    await runs(2);
    clock.advance(24 * HOUR); // Thursday 08:00: 70 hours
    await vi.waitFor(() => expect(h.logs('job_paused_idle')).toHaveLength(1));
    const job = jobOf(ALLOWED_USER);
    expect(h.logs('job_paused_idle')[0]).toMatchObject({
      jobId: job.id,
      pack: 'alpha',
      address: `tg:${ALLOWED_USER}`,
      idleDays: 2,
    });
    expect(job).toMatchObject({ enabled: 0, paused_by: 'idle' });
    expect(delivered()).toHaveLength(2);

    // The job's calls are booked to it; the person's turn is not.
    const booked = h.rows<{ job_id: string | null; n: number }>(
      'SELECT job_id, count(*) AS n FROM usage_events GROUP BY job_id ORDER BY job_id',
    );
    expect(booked).toEqual([
      { job_id: null, n: 1 },
      { job_id: job.id, n: 2 },
    ]);
    const [{ cost }] = h.rows<{ cost: number }>(
      'SELECT sum(cost_usd) AS cost FROM usage_events WHERE job_id = ?',
      job.id,
    ) as [{ cost: number }];
    expect(cost).toBeGreaterThan(0);

    // /jobs shows why it is paused and what it cost, then says the message resumed it.
    const listing = await ask('/jobs');
    expect(listing).toContain(
      `${job.id}: "0 8 * * *" (pack default), skill alpha_one — paused: nobody wrote here for 2 days; any message here resumes it; cost $0 today, $`,
    );
    expect(listing).toMatch(/Resumed 1 job paused while nobody wrote here\.$/);
    expect(jobOf(ALLOWED_USER)).toMatchObject({ enabled: 1, paused_by: null });

    clock.advance(24 * HOUR); // Friday 08:00: it runs again
    await runs(3);
    expect(h.logs('job_paused_idle')).toHaveLength(1);

    const usage = await api.usage();
    expect(usage.by_job).toEqual([
      expect.objectContaining({
        job_id: job.id,
        pack: 'alpha',
        chat: String(ALLOWED_USER),
        runs: 3,
        calls: 3,
        tokens: expect.any(Number),
        cost_usd: expect.any(Number),
      }),
    ]);
    expect(usage.by_job[0]!.cost_usd).toBeGreaterThan(cost);
  });

  it("ends the answer to a person's next message with the note, and never pauses with JOB_IDLE_DAYS=0", async () => {
    await start();
    await ask('hello');
    clock.advance(22 * HOUR);
    await runs(1);
    clock.advance(48 * HOUR); // Thursday 08:00 (Wednesday's tick was passed over in the jump)
    await vi.waitFor(() => expect(h.logs('job_paused_idle')).toHaveLength(1));

    h.model.enqueue({ text: 'Hello again.' });
    await ask('I am back');
    expect(h.tg.calls('sendMessage').at(-1)!.params.text).toBe(
      'Hello again.\n\n<i>Resumed 1 job paused while nobody wrote here.</i>',
    );
    expect(h.logs('jobs_resumed_idle')).toMatchObject([{ resumedJobs: 1 }]);
    expect(jobOf(ALLOWED_USER)).toMatchObject({ enabled: 1, paused_by: null });

    await h.close();
    await start({ env: { JOB_IDLE_DAYS: '0' } });
    await ask('hello');
    clock.advance(10 * 24 * HOUR); // ten days later, its tick runs (late, once)
    await runs(1);
    expect(h.logs('job_paused_idle')).toEqual([]);
  });

  it('on upgrade, counts from the last message a person stored, so only the idle chat pauses', async () => {
    await start();
    await ask('hello'); // Monday 10:00, chat 111
    await ask('hello', OTHER_USER); // and chat 222
    clock.advance(22 * HOUR); // Tuesday 08:00
    await runs(2);
    clock.advance(12 * HOUR); // Tuesday 20:00: only 222 writes again
    await ask('still here', OTHER_USER);
    // A database from before satchel kept the time: every route has none, and each route
    // last changed on Monday (its bind).
    h.exec('UPDATE conversation_routes SET last_person_at = NULL');

    clock.advance(12 * HOUR); // Wednesday 08:00: 46 hours since Monday, both run
    await runs(4);
    clock.advance(24 * HOUR); // Thursday 08:00
    await runs(5);
    expect(h.logs('job_paused_idle')).toMatchObject([{ address: `tg:${ALLOWED_USER}` }]);
    expect(jobOf(ALLOWED_USER)).toMatchObject({ enabled: 0, paused_by: 'idle' });
    expect(jobOf(OTHER_USER)).toMatchObject({ enabled: 1, paused_by: null });
    const hoursIn = h
      .rows<{ at: number }>('SELECT last_person_at AS at FROM conversation_routes ORDER BY chat_id')
      .map(({ at }) => Math.floor((at - Date.UTC(2026, 10, 23, 10, 0, 0)) / HOUR));
    expect(hoursIn).toEqual([0, 34]);
  });
  it('pauses a job whose conversation lost its route row, counting from the last message a person stored', async () => {
    await start();
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'schedule',
            arguments: { action: 'create', schedule: '0 9 * * *', prompt: 'Check the fern.' },
          },
        ],
      },
      { text: 'I will check it every morning.' },
    );
    await ask('check my fern every morning'); // Monday 10:00: a person wrote, a job is made
    const [tool] = h.rows<{ id: string }>("SELECT id FROM jobs WHERE source = 'tool'");
    // The chat's route row is gone (taken away by hand, an older database restored).
    h.exec('DELETE FROM conversation_routes');

    clock.advance(23 * HOUR); // Tuesday 09:00
    await vi.waitFor(() =>
      expect(h.logs('job_run').filter((l) => l.jobId === tool!.id)).toHaveLength(1),
    );
    clock.advance(48 * HOUR); // Thursday 09:00: 71 hours since the person wrote
    await vi.waitFor(() =>
      expect(h.logs('job_paused_idle')).toContainEqual(
        expect.objectContaining({ jobId: tool!.id, address: `tg:${ALLOWED_USER}` }),
      ),
    );
    expect(h.rows('SELECT enabled, paused_by FROM jobs WHERE id = ?', tool!.id)).toEqual([
      { enabled: 0, paused_by: 'idle' },
    ]);
    expect(h.logs('job_run').filter((l) => l.jobId === tool!.id)).toHaveLength(1);
    // The route is back, holding Monday 10:00 (the person's message and the job they made
    // then), not the time of a job's run.
    const [route] = h.rows<{ at: number }>('SELECT last_person_at AS at FROM conversation_routes');
    expect(Math.floor((route!.at - Date.UTC(2026, 10, 23, 10, 0, 0)) / 60_000)).toBe(0);
  });
});

describe("a cron entry's own model (SPEC §8)", () => {
  it("runs the job on it while the chat's turns use the chat's model, and /jobs names it", async () => {
    await start({ cronModel: 'openai:gpt-4.1-nano' });
    h.model.enqueue({ text: 'Hi.' });
    await ask('hello');
    clock.advance(22 * HOUR);
    await runs(1);
    const listing = await ask('/jobs');

    expect(h.model.chatRequests().map((r) => r.body.model)).toEqual([
      'gpt-4.1-mini',
      'gpt-4.1-nano',
    ]);
    expect(h.rows('SELECT model FROM jobs')).toEqual([{ model: 'openai:gpt-4.1-nano' }]);
    expect(h.rows('SELECT model, job_id IS NOT NULL AS job FROM usage_events ORDER BY id')).toEqual(
      [
        { model: 'gpt-4.1-mini', job: 0 },
        { model: 'gpt-4.1-nano', job: 1 },
      ],
    );
    expect(listing).toMatch(
      /: "0 8 \* \* \*" \(pack default\), skill alpha_one, model openai:gpt-4\.1-nano — next tomorrow 08:00; cost \$\S+ today, \$\S+ in all/,
    );
  });
});
