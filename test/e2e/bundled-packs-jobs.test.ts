/**
 * The bundled packs' reminders in one private chat (SPEC §8), end to end on the fake Bot API
 * and model, with the packs in packs/ as they ship: a chat that has used vocab, journal and
 * habits keeps every one of their manifest jobs through `/pack` switches; each fires at its
 * time with its pack's badge, whatever pack is active; the habits nudge's buttons work there
 * with no model call; and the person's reply to the journal's evening question is answered by
 * the journal, with the question in the request's history. It relies on the packs' cron
 * entries as their manifests list them (read here), the journal's `evening_prompt` skill and
 * the habits' `nudge` skill and `mark` action.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { loadPack } from '../../src/packs/loader.ts';
import {
  type RecordedRequest,
  type ScriptedReply,
  systemText,
  userTexts,
} from '../fakes/model-server.ts';
import type { ApiCall } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, handled, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const PACKS = fileURLToPath(new URL('../../packs', import.meta.url));
const BUNDLED = ['vocab', 'journal', 'habits'].map((name) => loadPack(path.join(PACKS, name)));
const displayOf = (pack: string) => BUNDLED.find((p) => p.name === pack)!.displayName;
/** What the journal's evening job asks (its answer, scripted below). */
const QUESTION = 'How was your day, in a few words?';
/** The habits nudge's keyboard: one habit to tap. */
const NUDGE_KEYBOARD = {
  kind: 'keyboard',
  text: 'Still open today:',
  buttons: [
    { label: '📖 Read', action: 'mark', params: { habit: 1, day: 'today', status: 'done' } },
  ],
};

const h = harnessPerTest();
let clock: JumpClock;

/** The active pack's display name and the skill a job pinned, from a request's system prompt. */
function turnOf(req: RecordedRequest): { pack: string; skill: string | undefined } {
  const system = systemText(req);
  return {
    pack: /^# Active pack: (.+)$/m.exec(system)?.[1] ?? '?',
    skill: /^# Skill for this turn: (\S+)$/m.exec(system)?.[1],
  };
}

/** What a job run answers: its pack and skill, so each delivered message names its job. */
const jobText = (pack: string, skill: string) =>
  skill === 'evening_prompt' ? QUESTION : `${pack}: ${skill} ran.`;

/**
 * The scripted model: a chat turn answers "<pack> here."; a job run answers `jobText`, the
 * habits nudge after sending its keyboard. Whatever order jobs due together run in.
 */
function answer(req: RecordedRequest): ScriptedReply {
  const { pack, skill } = turnOf(req);
  if (!skill) return { text: `${pack} here.` };
  const sent = (req.body.messages as { role: string }[]).some((m) => m.role === 'tool');
  if (skill === 'nudge' && !sent)
    return { toolCalls: [{ name: 'send_message', arguments: NUDGE_KEYBOARD }] };
  return { text: jobText(pack, skill) };
}

/** `/pack` and a press of `pack`'s button, then a message that pack answers. */
async function use(pack: string): Promise<void> {
  await handled(h, h.say('/pack'));
  await handled(h, h.tg.callback({ userId: ALLOWED_USER, data: `pack:${pack}` }));
  await handled(h, h.say(`hello ${pack}`));
  expectAnsweredBy(pack);
}

/** The last message in the chat is `pack`'s answer, with its badge (and maybe a receipt). */
function expectAnsweredBy(pack: string): void {
  const last = h.tg.texts(ALLOWED_USER).at(-1);
  expect(last).toMatch(new RegExp(`^${displayOf(pack)} here\\.\\n`));
  expect(last).toMatch(new RegExp(`\\n— ${displayOf(pack)}$`));
}

interface JobRow {
  id: string;
  pack: string;
  /** `<pack>:<cron id>:<address>`. */
  manifest_key: string;
  skill: string;
  next_run_at: number;
  last_run_at: number | null;
}
/** The chat's manifest jobs, as `pack:cron-id` in order, with their rows. */
const manifestJobs = () =>
  h
    .rows<JobRow>(
      `SELECT id, pack, manifest_key, skill, next_run_at, last_run_at FROM jobs
       WHERE source = 'manifest' AND chat_id = ?`,
      String(ALLOWED_USER),
    )
    .map((row) => ({ ...row, name: row.manifest_key.split(':').slice(0, 2).join(':') }))
    .sort((a, b) => a.name.localeCompare(b.name));

/** The message a job run delivered (its answer), by the text it starts with. */
const delivered = (text: string): ApiCall | undefined =>
  h.tg.sent(ALLOWED_USER).find((c) => String(c.params.text).startsWith(text));

/**
 * Moves the clock to each job's next run in turn, until every manifest job has run once;
 * jobs due at the same time run one after another.
 */
async function fireEveryJob(): Promise<void> {
  for (;;) {
    const waiting = manifestJobs().filter((j) => j.last_run_at === null);
    if (waiting.length === 0) return;
    const at = Math.min(...waiting.map((j) => j.next_run_at));
    const due = waiting.filter((j) => j.next_run_at === at);
    clock.advance(Math.max(0, at - clock.now()) + 1_000);
    await vi.waitFor(
      () => {
        const ran = manifestJobs().filter((j) => due.some((d) => d.id === j.id));
        expect(ran.every((j) => j.last_run_at !== null)).toBe(true);
        for (const job of due)
          expect(delivered(jobText(displayOf(job.pack), job.skill))).toBeDefined();
        expect(h.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(0);
      },
      { timeout: 15_000, interval: 25 },
    );
  }
}

describe('the bundled packs in one chat (SPEC §8)', () => {
  it("keeps every pack's reminders through /pack switches: each fires with its badge, and a reply to the evening question is the journal's", async () => {
    // 10:00 UTC on Sunday 29 November 2026: the Sunday jobs and the daily ones are all ahead.
    clock = new JumpClock(Date.UTC(2026, 10, 29, 10, 0, 0));
    // The picker is what this test is about: no default pack (DEFAULT_PACK empty).
    await h.start({ SATCHEL_PACKS: PACKS, DEFAULT_PACK: '' }, { app: { clock } });
    h.model.setDefault(answer);

    // Vocab answers the first message (picked), then journal and habits are used in turn:
    // habits adds a habit, for its nudge's button.
    h.say('hi');
    await h.tg.waitForCall('sendMessage');
    h.tg.callback({ userId: ALLOWED_USER, data: 'pack:vocab' });
    await settled(h, 2);
    expectAnsweredBy('vocab');
    await use('journal');
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: {
              action: 'insert',
              table: 'habits',
              values: { name: 'Read', emoji: '📖', target_per_week: 7, started_on: ':today' },
            },
          },
        ],
      },
      { text: `${displayOf('habits')} here.` },
    );
    await use('habits');
    // Back to vocab: journal and habits are now packs of this chat that are not active.
    await handled(h, h.say('/pack'));
    await handled(h, h.tg.callback({ userId: ALLOWED_USER, data: 'pack:vocab' }));
    expect(
      h.rows('SELECT active_pack FROM conversation_routes WHERE chat_id = ?', String(ALLOWED_USER)),
    ).toEqual([{ active_pack: 'vocab' }]);

    // Every bundled pack's cron entries are jobs of this chat, none lost to a switch.
    const wanted = BUNDLED.flatMap((p) => p.manifest.cron.map((c) => `${p.name}:${c.id}`)).sort();
    await vi.waitFor(() => expect(manifestJobs().map((j) => j.name)).toEqual(wanted));
    expect(wanted.length).toBeGreaterThanOrEqual(BUNDLED.length);
    expect(h.logs('jobs_synced').filter((l) => Number(l.removed) > 0)).toEqual([]);

    await fireEveryJob();
    for (const job of manifestJobs()) {
      const text = jobText(displayOf(job.pack), job.skill);
      expect(delivered(text)?.params.text).toBe(`${text}\n\n— ${displayOf(job.pack)}`);
    }
    expect(h.logs('job_run').map((l) => l.outcome)).toEqual(manifestJobs().map(() => 'delivered'));

    // The habits nudge's button works while vocab is active: no model call, one check-in.
    const nudge = h.tg.sent(ALLOWED_USER).find((c) => c.params.text === 'Still open today:');
    const button = nudge?.params.reply_markup.inline_keyboard[0][0];
    expect(button?.text).toBe('📖 Read');
    const calls = h.model.chatRequests().length;
    await handled(
      h,
      h.tg.callback({
        userId: ALLOWED_USER,
        data: button.callback_data,
        messageId: nudge!.result.message_id,
      }),
    );
    const board = h.tg.calls('editMessageText').at(-1);
    expect(board?.params.message_id).toBe(nudge!.result.message_id);
    expect(board?.params.text).toContain('✅ 📖 Read · 🔥 1 day');
    expect(h.model.chatRequests()).toHaveLength(calls);

    // The reply to the evening question goes to the journal, with the question in its history.
    const question = delivered(QUESTION)!;
    await handled(
      h,
      h.tg.text({
        userId: ALLOWED_USER,
        text: 'Fine, mostly tired',
        replyToMessageId: question.result.message_id,
      }),
    );
    const reply = h.model.chatRequests().at(-1)!;
    expect(turnOf(reply)).toEqual({ pack: displayOf('journal'), skill: undefined });
    const history = (reply.body.messages as { role: string; content: unknown }[])
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : ''}`);
    // Sunday's review (22:00) came after the evening question (21:30): both are in the
    // journal's session, in that order, right before the reply.
    expect(history.slice(-3, -1)).toEqual([
      `assistant: ${QUESTION}`,
      `assistant: ${jobText(displayOf('journal'), 'weekly_review')}`,
    ]);
    expect(userTexts(reply).at(-1)).toContain('Fine, mostly tired');
    expectAnsweredBy('journal');
    expect(
      h.rows('SELECT active_pack FROM conversation_routes WHERE chat_id = ?', String(ALLOWED_USER)),
    ).toEqual([{ active_pack: 'vocab' }]);
  }, 60_000);
});
