/**
 * Schedules, end to end on the app's clock (JumpClock: real time that the test moves
 * forward): a due job runs through the same pipeline as a message — the conversation's
 * lane, its own session, the quota gate, the ledger — and delivers into the chat or topic
 * that owns it.
 */
import { describe, expect, it, vi } from 'vitest';
import { type RecordedRequest, systemText, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { inForum } from '../support/user-acts.ts';

const HOUR = 3_600_000;
const GROUP = -1009876;
const TOPIC = 77;
const h = harnessPerTest();
let clock: JumpClock;

/** 10:00 UTC on a Monday; the alpha pack's manifest job runs daily at 08:00. */
async function start(
  env: Record<string, string> = {},
  extraManifest = '',
  shutdownGraceMs?: number,
) {
  clock = new JumpClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  await h.start(
    { SATCHEL_PACKS: fixturePacks(['alpha'], extraManifest), ...env },
    { app: { clock, ...(shutdownGraceMs === undefined ? {} : { shutdownGraceMs }) } },
  );
}

const allText = (req: RecordedRequest) => userTexts(req).join('\n');
const jobRuns = () => h.logs('job_run');

/** The user asks for a reminder; the model schedules it with the tool, then confirms. */
async function remindAt(iso: string, prompt: string) {
  h.model.enqueue(
    { toolCalls: [{ name: 'schedule', arguments: { action: 'create', schedule: iso, prompt } }] },
    { text: 'I will remind you.' },
  );
  h.say('remind me at 18:00 to water the fern');
  await settled(h, 1);
}

describe('schedules', () => {
  it('runs a one-shot job at its time, in its own session, once, and removes it', async () => {
    await start();
    await remindAt('2026-11-23T18:00:00+00:00', 'Remind the user to water the fern.');
    expect(h.rows('SELECT kind FROM jobs WHERE source = ?', 'tool')).toEqual([{ kind: 'once' }]);

    h.model.enqueue({ text: 'Time to water the fern!' });
    clock.advance(8 * HOUR);
    await h.tg.waitForCall('sendMessage', (c) => c.params.text === 'Time to water the fern!');
    await settled(h, 1);

    const run = h.model.chatRequests()[2]!;
    expect(allText(run)).toContain('water the fern');
    // Its own session: none of the chat's messages.
    expect(allText(run)).not.toContain('remind me at 18:00');
    expect(systemText(run)).toContain('satchel');
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'I will remind you.\n\n✓ reminder set for today 18:00',
      'Time to water the fern!',
    ]);
    expect(h.rows('SELECT 1 FROM jobs WHERE source = ?', 'tool')).toEqual([]);
    expect(jobRuns()).toMatchObject([{ outcome: 'delivered' }]);
    const [session] = h.rows<{ kind: string }>(
      "SELECT s.kind FROM sessions s JOIN messages m ON m.session_id = s.id WHERE m.content = 'Time to water the fern!'",
    );
    expect(session?.kind).toBe('job');
  });

  it("lists the chat's jobs with /jobs and names the next one in /status", async () => {
    await start();
    await remindAt('2026-11-23T18:00:00+00:00', 'Remind the user to water the fern.');
    h.say('/jobs');
    await settled(h, 2);
    h.say('/status');
    await settled(h, 3);
    const [, jobs, status] = h.tg.texts(ALLOWED_USER);
    expect(jobs).toContain('water the fern');
    expect(jobs).toMatch(/18:00/);
    expect(status).toMatch(/Next job: .*18:00/);
  });

  it('sends nothing when the run answers [SILENT]', async () => {
    await start();
    await remindAt('2026-11-23T12:00:00Z', 'Only speak if the fern needs water.');
    h.model.enqueue({ text: '[SILENT]' });
    clock.advance(2 * HOUR);
    await expectRun('silent');
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'I will remind you.\n\n✓ reminder set for today 12:00',
    ]);
    expect(h.rows('SELECT 1 FROM jobs WHERE source = ?', 'tool')).toEqual([]);
  });

  it("runs a pack's daily job on two days; the second run remembers the first, not the chat", async () => {
    await start();
    h.say('hello from the chat');
    await settled(h, 1);

    h.model.enqueue({ text: 'Day one: the fern is thirsty.' });
    clock.advance(22 * HOUR); // Tuesday 08:00
    await expectRun('delivered');
    h.model.enqueue({ text: 'Day two: all good.' });
    clock.advance(24 * HOUR); // Wednesday 08:00
    await expectRun('delivered', 2);

    const [, first, second] = h.model.chatRequests();
    expect(systemText(first!)).toContain('ALPHA-ONE-BODY');
    expect(allText(second!)).not.toContain('hello from the chat');
    const history = JSON.stringify(second!.body.messages);
    expect(history).toContain('Day one: the fern is thirsty.');
    expect(h.tg.texts(ALLOWED_USER).slice(1)).toEqual([
      'Day one: the fern is thirsty.',
      'Day two: all good.',
    ]);
  });

  it("delivers a pack's manifest job to each chat and topic bound to the pack", async () => {
    await start();
    h.say('hi');
    h.tg.text({ ...inForum(GROUP, TOPIC), text: '@satchel_test_bot hi from the topic' });
    await settled(h, 2);
    h.model.setDefault({ text: 'Morning check: water the fern.' });
    clock.advance(22 * HOUR);
    await expectRun('delivered', 2);

    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Morning check: water the fern.');
    const topic = h.tg.sent(GROUP).at(-1)!;
    expect(topic.params).toMatchObject({
      text: 'Morning check: water the fern.',
      message_thread_id: TOPIC,
    });
  });

  it('runs a one-shot that fell due while satchel was stopped, once, after the start', async () => {
    await start();
    await remindAt('2026-11-23T12:00:00Z', 'Remind the user about the fern.');
    await h.stop();
    clock.advance(3 * HOUR);
    h.model.enqueue({ text: 'You asked me to remind you: the fern.' });
    await h.restart();
    await expectRun('delivered');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'I will remind you.\n\n✓ reminder set for today 12:00',
      'You asked me to remind you: the fern.',
    ]);
  });

  it("waits for the chat's own running turn before it runs", async () => {
    await start();
    await remindAt('2026-11-23T10:01:00Z', 'Remind the user about the fern.');
    h.model.enqueue({ text: 'a slow answer', delayMs: 800 }, { text: 'Reminder: the fern.' });
    h.say('tell me something slowly');
    await h.model.waitForRequest(3);
    // Due while the chat's turn runs (and well inside that turn's own deadline).
    clock.advance(2 * 60_000);
    await expectRun('delivered');
    expect(h.tg.texts(ALLOWED_USER).slice(1)).toEqual(['a slow answer', 'Reminder: the fern.']);
  });

  it('still runs a one-shot that only waited for its chat during two shutdowns', async () => {
    // Model calls hang until the shutdown cuts them; a start takes 0.2 s to give up on them.
    await start({ LLM_TIMEOUT_MS: '600000' }, '', 200);
    await remindAt('2026-11-23T10:01:00Z', 'Remind the user about the fern.');
    const job = () =>
      h.rows<{ running_due_at: number | null; run_attempts: number }>(
        'SELECT running_due_at, run_attempts FROM jobs WHERE source = ?',
        'tool',
      );
    /** The chat's turn hangs; the job falls due, is claimed and waits for the chat's lane. */
    const waitBehindTheChat = async () => {
      await vi.waitFor(() => expect(job()[0]?.running_due_at).not.toBeNull(), { timeout: 10_000 });
      expect(job()).toEqual([{ running_due_at: Date.UTC(2026, 10, 23, 10, 1), run_attempts: 0 }]);
    };
    h.model.enqueue({ hang: true });
    h.say('tell me something');
    await h.model.waitForRequest(3);
    clock.advance(2 * 60_000);
    await waitBehindTheChat();
    for (const _ of [1, 2]) {
      // Cut off like a crash: the job stays claimed. The chat's turn, replayed at the start,
      // takes the lane first and hangs again.
      const asked = h.model.chatRequests().length;
      h.model.enqueue({ hang: true });
      await h.restart();
      await h.model.waitForRequest(asked + 1);
      await waitBehindTheChat();
    }
    h.model.enqueue({ text: 'Something.' }, { text: 'Reminder: the fern.' });
    await h.restart();
    await expectRun('delivered');
    expect(h.tg.texts(ALLOWED_USER).slice(-2)).toEqual(['Something.', 'Reminder: the fern.']);
    expect(job()).toEqual([]);
  });

  it('gives up a one-shot whose own turn was cut short twice, and sends nothing', async () => {
    await start({ LLM_TIMEOUT_MS: '600000' }, '', 200);
    await remindAt('2026-11-23T12:00:00Z', 'Remind the user about the fern.');
    const attempts = () =>
      h.rows('SELECT run_attempts FROM jobs WHERE source = ?', 'tool').map((r) => r.run_attempts);
    h.model.enqueue({ hang: true });
    clock.advance(3 * HOUR);
    await h.model.waitForRequest(3);
    expect(attempts()).toEqual([1]); // counted once its turn started
    h.model.enqueue({ hang: true });
    await h.restart();
    await h.model.waitForRequest(4);
    expect(h.logs('job_resumed')).toMatchObject([{ attempts: 1 }]);
    expect(attempts()).toEqual([2]);
    await h.restart();
    await expectRun('failed');
    expect(jobRuns().at(-1)).toMatchObject({ reason: 'interrupted twice' });
    expect(h.model.chatRequests()).toHaveLength(4);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'I will remind you.\n\n✓ reminder set for today 12:00',
    ]);
    expect(attempts()).toEqual([]);
  });

  it('refuses a job over the daily cap and says so in the chat once', async () => {
    await start({ QUOTA_DAILY_TOKENS: '20' });
    await remindAt('2026-11-23T12:00:00Z', 'Remind the user about the fern.');
    clock.advance(3 * HOUR);
    await expectRun('refused');
    const texts = h.tg.texts(ALLOWED_USER);
    expect(texts).toHaveLength(2);
    expect(texts[1]).toMatch(/daily token cap/i);
    expect(h.model.chatRequests()).toHaveLength(2);
  });

  it("answers with the pack's own model when its manifest names one", async () => {
    await start({}, 'model: gpt-4.1-nano\n');
    h.say('hello');
    await settled(h, 1);
    expect(h.model.chatRequests()[0]?.model).toBe('gpt-4.1-nano');
    expect(h.rows('SELECT model FROM usage_events')).toEqual([{ model: 'gpt-4.1-nano' }]);
  });
});

/** Waits until `count` job runs ended, the last with `outcome`. */
async function expectRun(outcome: string, count = 1): Promise<void> {
  await vi.waitFor(
    () => {
      expect(jobRuns()).toHaveLength(count);
      expect(jobRuns().at(-1)).toMatchObject({ outcome });
      expect(h.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toEqual([]);
    },
    { timeout: 10_000, interval: 25 },
  );
}
