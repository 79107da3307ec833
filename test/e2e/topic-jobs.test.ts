/**
 * A forum topic's jobs when the topic closes, reopens or is deleted (SPEC §12), end to end on
 * the app's clock (JumpClock): the jobs are made by the `schedule` tool in the topic, and run
 * (or not) when the clock reaches their time. One job runs at a time, in the order of their
 * times, so a job that ran when it should not have shows in the order of `job_run` lines.
 */
import { describe, expect, it, vi } from 'vitest';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { inForum } from '../support/user-acts.ts';

const HOUR = 3_600_000;
const FORUM = -100777;
const TOPIC = 10;
const OTHER_TOPIC = 11;
const BOT = '@satchel_test_bot';
const h = harnessPerTest();
let clock: JumpClock;

type JobState = { what: string; thread: string; enabled: number; paused_by: string | null };
/** Every job: the tool's (by prompt) and the pack's own daily one (by skill, `alpha_one`). */
const jobStates = () =>
  h.rows<JobState>(
    'SELECT coalesce(prompt, skill) AS what, thread_id AS thread, enabled, paused_by FROM jobs ORDER BY thread_id, what',
  );
/** The id of the job that runs `what` (a prompt, or the pack's skill) in topic `thread`. */
const idOf = (what: string, thread = TOPIC) =>
  h.rows<{ id: string }>(
    'SELECT id FROM jobs WHERE coalesce(prompt, skill) = ? AND thread_id = ?',
    what,
    String(thread),
  )[0]!.id;
/** The jobs that ran, in order. */
const runs = () => h.logs('job_run').map((line) => line.jobId);
const create = (schedule: string, prompt: string) => ({
  name: 'schedule',
  arguments: { action: 'create', schedule, prompt },
});
const inTopic = (threadId: number) => inForum(FORUM, threadId);
/** The calls of `method` (failed ones too) into `thread` of the forum. */
const callsInto = (thread: number, method = 'sendMessage') =>
  h.tg.calls(method).filter((c) => c.params.message_thread_id === thread);

/**
 * 10:00 UTC on a Monday; topic 10 is the alpha pack's (named after it). The pack's own job
 * (`alpha_one`, daily at 08:00) comes to each topic bound to it.
 */
async function start(): Promise<number> {
  clock = new JumpClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), ACK_REACTION: '' }, { app: { clock } });
  h.tg.topicCreated({ userId: ALLOWED_USER, chatId: FORUM, threadId: TOPIC, name: 'alpha' });
  await settled(h, 1);
  return 1;
}

describe("a forum topic's jobs (SPEC §12)", () => {
  it('pauses the jobs of a deleted topic when a send there fails, and does not retry the send', async () => {
    let updates = await start();
    h.model.enqueue(
      { toolCalls: [create('0 11 * * *', 'water the fern')] },
      { text: 'Scheduled.' },
    );
    h.tg.text({ ...inTopic(TOPIC), text: `${BOT} water the fern daily at 11` });
    await settled(h, ++updates);
    h.model.enqueue(
      { toolCalls: [create('30 11 * * *', 'feed the cat')] },
      { text: 'Scheduled too.' },
    );
    h.tg.text({ ...inTopic(OTHER_TOPIC), text: `${BOT} feed the cat daily at 11:30` });
    await settled(h, ++updates);
    const fern = idOf('water the fern');
    const cat = idOf('feed the cat', OTHER_TOPIC);

    // Someone deletes topic 10: Telegram says nothing until the job's answer is sent there.
    h.tg.deleteTopic(FORUM, TOPIC);
    h.model.enqueue({ text: 'Time to water the fern.' });
    clock.advance(HOUR);
    await vi.waitFor(() => expect(runs()).toEqual([fern]));
    await settled(h, updates);

    expect(jobStates()).toEqual([
      { what: 'alpha_one', thread: String(TOPIC), enabled: 0, paused_by: 'topic_gone' },
      { what: 'water the fern', thread: String(TOPIC), enabled: 0, paused_by: 'topic_gone' },
      { what: 'alpha_one', thread: String(OTHER_TOPIC), enabled: 1, paused_by: null },
      { what: 'feed the cat', thread: String(OTHER_TOPIC), enabled: 1, paused_by: null },
    ]);
    expect(h.logs('topic_gone_jobs_paused')).toMatchObject([
      { level: 40, address: `tg:${FORUM}:${TOPIC}`, pausedJobs: 2 },
    ]);
    // Telegram was asked once: the refusal is final, the row is not tried again.
    expect(callsInto(TOPIC).map((c) => [c.params.text, c.failed])).toEqual([
      ['Scheduled.\n\n✓ 1 job scheduled', undefined],
      ['Time to water the fern.', true],
    ]);
    expect(
      h.rows("SELECT thread_id, attempts, last_error FROM outbox WHERE status = 'failed'"),
    ).toEqual([
      {
        thread_id: String(TOPIC),
        attempts: 1,
        last_error: 'sendMessage failed: Bad Request: message thread not found',
      },
    ]);

    // The other topic's jobs run on; the paused ones, due at 08:00 and 11:00 the next day
    // (between the other topic's), do not.
    h.model.setDefault({ text: 'Done in the other topic.' });
    clock.advance(HOUR * 0.75); // 11:45
    await vi.waitFor(() => expect(runs()).toEqual([fern, cat]));
    clock.advance(24 * HOUR); // 11:45 the next day
    await vi.waitFor(() => expect(runs()).toHaveLength(4));
    expect(runs()).toEqual([fern, cat, idOf('alpha_one', OTHER_TOPIC), cat]);
    await settled(h, updates);
    expect(callsInto(TOPIC)).toHaveLength(2);
    expect(callsInto(OTHER_TOPIC).map((c) => c.params.text)).toEqual([
      'Scheduled too.\n\n✓ 1 job scheduled',
      'Done in the other topic.',
      'Done in the other topic.',
      'Done in the other topic.',
    ]);
  });

  it('pauses them at the first live message of a streamed answer refused there, and streams no more into it', async () => {
    const updates = await start();
    h.tg.deleteTopic(FORUM, TOPIC);
    // Typing fails for another reason: the streamed answer's first message is the call that
    // learns the topic is gone.
    h.tg.failAlways('sendChatAction', { status: 500 });
    const answer = 'Ferns like shade, damp soil and a misting now and then, never a soggy pot.';
    h.model.enqueue({ text: answer, chunks: 4, chunkDelayMs: 100 });
    h.tg.text({ ...inTopic(TOPIC), text: `${BOT} how do I keep a fern happy?` });

    await vi.waitFor(() => expect(callsInto(TOPIC)).toHaveLength(1));
    // The stream's next update may go at once: it would be another live message there.
    clock.advance(1000);
    await settled(h, updates + 1);

    expect(jobStates()).toEqual([
      { what: 'alpha_one', thread: String(TOPIC), enabled: 0, paused_by: 'topic_gone' },
    ]);
    // Paused when the live message was refused, before the final text was; logged once.
    const order = h
      .logs()
      .filter(
        (l) =>
          l.event === 'topic_gone_jobs_paused' ||
          l.event === 'tg_send_failed' ||
          (l.event === 'tg_side_call_failed' && l.what === 'sendMessage'),
      )
      .map((l) => l.event);
    expect(order).toEqual(['topic_gone_jobs_paused', 'tg_side_call_failed', 'tg_send_failed']);
    expect(h.logs('topic_gone_jobs_paused')).toMatchObject([
      { address: `tg:${FORUM}:${TOPIC}`, pausedJobs: 1 },
    ]);
    // One live message (its first chunk), no more updates, then the final text (one try).
    const sent = callsInto(TOPIC);
    expect(sent.map((c) => c.failed)).toEqual([true, true]);
    expect(sent[1]?.params.text).toBe(answer);
    expect(answer.startsWith(String(sent[0]?.params.text))).toBe(true);
    expect(sent[0]?.params.text).not.toBe(answer);
  });

  it('pauses them when typing there is refused', async () => {
    const updates = await start();
    h.tg.deleteTopic(FORUM, TOPIC);
    // Messages there fail for another reason: only typing can tell the topic is gone.
    h.tg.failAlways('sendMessage', {
      status: 400,
      description: 'Bad Request: not enough rights to send text messages to the chat',
    });
    h.model.enqueue({ text: 'Ferns like shade.', chunks: 2, chunkDelayMs: 50 });
    h.tg.text({ ...inTopic(TOPIC), text: `${BOT} how do I keep a fern happy?` });
    await settled(h, updates + 1);

    expect(jobStates()).toEqual([
      { what: 'alpha_one', thread: String(TOPIC), enabled: 0, paused_by: 'topic_gone' },
    ]);
    expect(h.logs('topic_gone_jobs_paused')).toMatchObject([
      { level: 40, address: `tg:${FORUM}:${TOPIC}`, pausedJobs: 1 },
    ]);
    expect(callsInto(TOPIC, 'sendChatAction').map((c) => c.failed)).toEqual([true]);
  });

  it('resumes them when a message reaches the topic after a refusal Telegram made in error', async () => {
    const updates = await start();
    // The topic exists, but one typing call is refused as if it did not (a Bot API glitch).
    h.tg.fail('sendChatAction', {
      status: 400,
      description: 'Bad Request: message thread not found',
    });
    h.model.enqueue({ text: 'Ferns like shade.', delayMs: 200 });
    h.tg.text({ ...inTopic(TOPIC), text: `${BOT} how do I keep a fern happy?` });
    await settled(h, updates + 1);

    expect(callsInto(TOPIC, 'sendChatAction').map((c) => c.failed)[0]).toBe(true);
    expect(callsInto(TOPIC).map((c) => [c.failed ?? false, c.params.text])).toEqual([
      [false, 'Ferns like shade.'],
    ]);
    expect(h.logs('topic_gone_jobs_paused')).toMatchObject([{ pausedJobs: 1 }]);
    expect(h.logs('topic_back_jobs_resumed')).toMatchObject([
      { address: `tg:${FORUM}:${TOPIC}`, resumedJobs: 1 },
    ]);
    expect(jobStates()).toEqual([
      { what: 'alpha_one', thread: String(TOPIC), enabled: 1, paused_by: null },
    ]);
  });

  it('resumes on reopening the jobs the close paused, not one the user paused', async () => {
    let updates = await start();
    h.model.enqueue(
      { toolCalls: [create('0 11 * * *', 'water the fern'), create('0 10 * * *', 'repot')] },
      { text: 'Scheduled both.' },
    );
    h.tg.text({ ...inTopic(TOPIC), text: `${BOT} water daily at 11, repot daily at 10` });
    await settled(h, ++updates);
    h.model.enqueue(
      { toolCalls: [{ name: 'schedule', arguments: { action: 'pause', id: idOf('repot') } }] },
      { text: 'Paused the repotting.' },
    );
    h.tg.text({ ...inTopic(TOPIC), text: `${BOT} pause the repotting` });
    await settled(h, ++updates);

    h.tg.service({ userId: ALLOWED_USER, chatId: FORUM, threadId: TOPIC, closed: true });
    await settled(h, ++updates);
    expect(jobStates()).toEqual([
      { what: 'alpha_one', thread: String(TOPIC), enabled: 0, paused_by: 'topic_closed' },
      { what: 'repot', thread: String(TOPIC), enabled: 0, paused_by: null },
      { what: 'water the fern', thread: String(TOPIC), enabled: 0, paused_by: 'topic_closed' },
    ]);
    // Closed over the fern's time: nothing runs.
    clock.advance(HOUR);
    const requests = h.model.chatRequests().length;

    h.tg.service({ userId: ALLOWED_USER, chatId: FORUM, threadId: TOPIC, reopened: true });
    await settled(h, ++updates);
    expect(jobStates()).toEqual([
      { what: 'alpha_one', thread: String(TOPIC), enabled: 1, paused_by: null },
      { what: 'repot', thread: String(TOPIC), enabled: 0, paused_by: null },
      { what: 'water the fern', thread: String(TOPIC), enabled: 1, paused_by: null },
    ]);
    expect(h.logs('topic_reopened')).toMatchObject([
      { level: 30, address: `tg:${FORUM}:${TOPIC}`, resumedJobs: 2 },
    ]);
    // Each continues from its next tick, without catching up on the one missed while closed.
    expect(h.rows("SELECT next_run_at FROM jobs WHERE prompt = 'water the fern'")).toEqual([
      { next_run_at: Date.UTC(2026, 10, 24, 11, 0, 0) },
    ]);
    expect(runs()).toEqual([]);
    expect(h.model.chatRequests()).toHaveLength(requests);

    // The next day: the pack's job at 08:00, then (the repotting at 10:00 stays paused) the fern.
    h.model.enqueue({ text: 'Morning check done.' }, { text: 'Time to water the fern.' });
    clock.advance(24 * HOUR);
    await vi.waitFor(() => expect(runs()).toHaveLength(2));
    expect(runs()).toEqual([idOf('alpha_one'), idOf('water the fern')]);
    await settled(h, updates);
    expect(callsInto(TOPIC).map((c) => c.params.text)).toEqual([
      'Scheduled both.\n\n✓ 2 jobs scheduled',
      'Paused the repotting.\n\n✓ 1 job paused',
      'Morning check done.',
      'Time to water the fern.',
    ]);
    expect(h.model.chatRequests()).toHaveLength(requests + 2);
  });
});
