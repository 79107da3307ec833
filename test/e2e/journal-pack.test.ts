/**
 * The bundled journal pack, end to end on the fake Bot API and model, where `pack test` cannot
 * go: its jobs firing on the clock in Europe/Berlin. The evening question enters the chat, so
 * the reply to it is read with it; its mood buttons save a check-in with no model call, after
 * midnight for the evening before; on Sunday the review runs after the evening question and
 * reads Sunday; an upgrade from 1.0.0 frees the Sunday an early review had silenced.
 */
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { toolResults, userTexts } from '../fakes/model-requests.ts';
import type { RecordedRequest } from '../fakes/model-server.ts';
import type { ApiCall } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, handled, harnessPerTest } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { tempDirs } from '../support/temp-dirs.ts';

// Made first, so its folders are removed after the harness that reads them has closed.
const temp = tempDirs('satchel-journal-');
const h = harnessPerTest();
const JOURNAL = fileURLToPath(new URL('../../packs/journal', import.meta.url));
const MINUTE = 60_000;
let clock: JumpClock;

/** The ```sql blocks of a journal skill, in order. */
function skillSql(skill: string): string[] {
  const text = readFileSync(path.join(JOURNAL, 'skills', skill, 'SKILL.md'), 'utf8');
  return [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
}
const [TODAY_COUNTS] = skillSql('evening_prompt');
const [WEEK, WEEK_ENTRIES] = skillSql('weekly_review');

const QUESTION =
  'What took most of your energy today? Reply here, or send /write for a guided entry.';
const MOODS = ['1 😞', '2 🙁', '3 😐', '4 🙂', '5 😄'];
const MOOD_KEYBOARD = {
  kind: 'keyboard',
  text: 'How did today feel?',
  buttons: MOODS.map((label, i) => ({ label, action: 'mood', params: { mood: i + 1 } })),
};

/** The journal alone, in Berlin, at `start`; the first message binds the chat to it. */
async function start(at: number) {
  const packs = temp();
  cpSync(JOURNAL, path.join(packs, 'journal'), { recursive: true });
  clock = new JumpClock(at);
  await h.start({ SATCHEL_PACKS: packs, SATCHEL_TIMEZONE: 'Europe/Berlin' }, { app: { clock } });
  h.model.enqueue({ text: 'Hello.' });
  await handled(h, h.say('hi'));
}

const call = (name: string, args: object) => ({ toolCalls: [{ name, arguments: args }] });
const clockReading = (localTime: string) =>
  call('db_write', {
    action: 'insert',
    table: 'clock_readings',
    values: { read_at: ':now', local_date: ':today', local_time: localTime },
  });

/** The evening job's run as its skill says: clock, counts, the question recorded, the buttons. */
function eveningRun(day: string) {
  h.model.enqueue(
    clockReading('21:30'),
    call('db_query', { sql: TODAY_COUNTS }),
    call('db_write', {
      action: 'insert',
      table: 'prompts',
      values: { prompt_date: day, prompt: QUESTION.split('?')[0], sent_at: ':now' },
    }),
    call('send_message', MOOD_KEYBOARD),
    { text: QUESTION },
  );
}

/** Moves the clock to `at` and waits for the `runs`th job run. */
async function jobsUntil(at: number, runs: number) {
  clock.advance(at - clock.now());
  await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(runs), { timeout: 10_000 });
  await vi.waitFor(() =>
    expect(h.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(0),
  );
}

interface Button {
  text: string;
  callback_data: string;
}
const keyboardOf = (c: ApiCall) => (c.params.reply_markup?.inline_keyboard ?? []) as Button[][];
const messageIdOf = (c: ApiCall): number =>
  c.method === 'editMessageText' ? Number(c.params.message_id) : c.result.message_id;

/** Presses `label` on the last message that shows it (sent or edited); returns the update id. */
function press(label: string): number {
  const shown = h.tg
    .calls()
    .filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText')
    .findLast((c) =>
      keyboardOf(c)
        .flat()
        .some((b) => b.text === label),
    );
  if (!shown) throw new Error(`no button "${label}" shown`);
  const button = keyboardOf(shown)
    .flat()
    .find((b) => b.text === label)!;
  return h.tg.callback({
    userId: ALLOWED_USER,
    messageId: messageIdOf(shown),
    data: button.callback_data,
  });
}

/** Rows of the owner's journal database. */
function journalRows(sql: string): unknown[] {
  const db = new Database(path.join(h.home, 'packs', 'journal', 'pack.db'), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** Runs statements on the owner's journal database (to plant data, or an older state). */
function journalExec(sql: string): void {
  const db = new Database(path.join(h.home, 'packs', 'journal', 'pack.db'));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** The request's conversation without the system prompt, as `role: text` lines. */
function history(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map(
      (m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
    );
}

/** The rows of the db_query result a request carried as its last tool result. */
function lastQueryRows(req: RecordedRequest): unknown[][] {
  const result = toolResults(req).at(-1) ?? '';
  const json = result.slice(result.indexOf('{'), result.lastIndexOf('}') + 1);
  return (JSON.parse(json) as { rows: unknown[][] }).rows;
}

describe('the journal pack on the clock', () => {
  it('the evening question enters the chat, its reply is read with it, and its mood buttons need no model, after midnight too', async () => {
    // Monday 23 November 2026, 20:00 in Berlin (UTC+1).
    await start(Date.UTC(2026, 10, 23, 19, 0));
    eveningRun('2026-11-23');
    await jobsUntil(Date.UTC(2026, 10, 23, 20, 30), 1);

    const keyboard = h.tg.calls('sendMessage').find((c) => c.params.text === 'How did today feel?');
    expect(keyboardOf(keyboard!).map((line) => line.map((b) => b.text))).toEqual(
      MOODS.map((m) => [m]),
    );
    // The question, with the receipt of what the run saved (the clock reading and the question).
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(`${QUESTION}\n\n✓ 2 rows saved`);
    // The run saw Monday with nothing written: the question is due.
    expect(lastQueryRows(h.model.chatRequests().at(-3)!)).toEqual([['2026-11-23', 0, 0]]);

    // The reply is read with the question right above it, in the journal's chat session.
    h.model.enqueue({ text: 'Moving is a lot. Want to write it down?' });
    await handled(h, h.say('Fine, mostly tired — the move.'));
    const reply = h.model.chatRequests().at(-1)!;
    expect(history(reply).slice(-2, -1)).toEqual([`assistant: ${QUESTION}`]);
    expect(userTexts(reply).at(-1)).toBe('Fine, mostly tired — the move.');

    // 00:40 on Tuesday: a tap on Monday's buttons is Monday's check-in, with no model call.
    const requests = h.model.chatRequests().length;
    clock.advance(Date.UTC(2026, 10, 23, 23, 40) - clock.now());
    await handled(h, press('3 😐'));
    await handled(h, press('2'));
    await handled(h, press('Done'));
    expect(h.model.chatRequests()).toHaveLength(requests);
    expect(h.tg.calls('editMessageText').map((c) => c.params.text)).toEqual([
      'Mood 3/5 for Monday ✓ — and your energy?',
      'Saved ✓ Monday: mood 3/5, energy 2/5. Last 7 days: mood 3.0 (1 logged).',
      'Saved ✓ Monday: mood 3/5, energy 2/5. Last 7 days: mood 3.0 (1 logged).',
    ]);
    // 23:40 UTC + 60 minutes (the evening's clock reading) = 00:40: before 04:00, so Monday.
    expect(journalRows('SELECT checkin_date, checkin_time, mood, energy FROM checkins')).toEqual([
      { checkin_date: '2026-11-23', checkin_time: '00:40', mood: 3, energy: 2 },
    ]);
    expect(h.logs('action_run').map((l) => [l.action, l.outcome])).toEqual([
      ['mood', 'ok'],
      ['energy', 'ok'],
      ['done', 'ok'],
    ]);
  });

  it('on Sunday the review runs after the evening question and reads Sunday; the intentions reply is read with it', async () => {
    // Sunday 29 November 2026, 20:00 in Berlin; Monday 23 has an entry with mood 2.
    await start(Date.UTC(2026, 10, 29, 19, 0));
    journalExec(
      "INSERT INTO entries (entry_date, mood, body) VALUES ('2026-11-23', 2, 'Boxes everywhere.')",
    );
    eveningRun('2026-11-29');
    await jobsUntil(Date.UTC(2026, 10, 29, 20, 30), 1);
    clock.advance(5 * MINUTE);
    await handled(h, press('4 🙂'));
    await handled(h, press('Skip'));

    const memoryLine =
      '- Week 2026-11-23 to 2026-11-29: entries 1, check-ins 1, mood 3.0, best Sunday 4.0, worst Monday 2.0';
    h.model.enqueue(
      clockReading('22:00'),
      call('db_query', { sql: WEEK }),
      call('db_query', { sql: WEEK_ENTRIES, params: ['2026-11-23', '2026-11-29'] }),
      call('db_write', {
        action: 'insert',
        table: 'weekly_reviews',
        values: { week_start: '2026-11-23', summary: 'A week of boxes.', highlights: '- Sunday' },
      }),
      call('memory', { action: 'append', file: 'MEMORY.md', text: memoryLine }),
      { text: 'A week of boxes, lighter by Sunday. What are 1–3 intentions for next week?' },
    );
    await jobsUntil(Date.UTC(2026, 10, 29, 21, 0), 2);

    // The evening question at 21:30, then the review at 22:00, Berlin time.
    const skills = new Map(
      h
        .rows<{ id: string; skill: string }>('SELECT id, skill FROM jobs')
        .map((j) => [j.id, j.skill]),
    );
    expect(h.logs('job_run').map((l) => [skills.get(String(l.jobId)), l.dueAt, l.outcome])).toEqual(
      [
        ['evening_prompt', '2026-11-29T20:30:00.000Z', 'delivered'],
        ['weekly_review', '2026-11-29T21:00:00.000Z', 'delivered'],
      ],
    );
    // The week it read ended today, and holds Sunday's check-in: moods 2 (Monday) and 4
    // (Sunday) → (2 + 4) / 2 = 3.0; no week before, so no trend.
    const stats = lastQueryRows(h.model.chatRequests().at(-4)!)[0]!;
    expect(stats.slice(0, 13)).toEqual([
      '2026-11-23',
      '2026-11-29',
      1,
      1,
      3,
      null,
      null,
      null,
      1,
      'Sunday',
      4,
      'Monday',
      2,
    ]);
    expect(stats.at(-1)).toBe(memoryLine);

    h.model.enqueue(
      call('db_write', {
        action: 'update',
        table: 'weekly_reviews',
        values: { intentions: '- unpack the books' },
        where: { week_start: '2026-11-23' },
      }),
      { text: 'Saved.' },
    );
    await handled(h, h.say('- unpack the books'));
    const reply = h.model.chatRequests().at(-2)!;
    expect(history(reply).slice(-2, -1)).toEqual([
      'assistant: A week of boxes, lighter by Sunday. What are 1–3 intentions for next week?',
    ]);
    expect(
      journalRows('SELECT week_start, entry_count, mood_avg, intentions FROM weekly_reviews'),
    ).toEqual([
      { week_start: '2026-11-23', entry_count: 1, mood_avg: 3, intentions: '- unpack the books' },
    ]);
    expect(readFileSync(path.join(h.home, 'packs', 'journal', 'MEMORY.md'), 'utf8')).toContain(
      memoryLine,
    );
  });

  it('an upgrade from 1.0.0 moves the Sunday review to 22:00 and removes the early review that silenced a Sunday', async () => {
    // Monday 23 November 2026, 10:00 UTC.
    await start(Date.UTC(2026, 10, 23, 10, 0));
    // As 1.0.0 left it: the review at 18:00; Sunday's review of 16–22 November, and one of
    // 23–29 November written this Monday (it silenced next Sunday), holding the intentions.
    h.exec("UPDATE jobs SET schedule = '0 18 * * 0' WHERE skill = 'weekly_review'");
    await h.stop();
    journalExec(`
      DROP VIEW local_clock; DROP VIEW journal_days; DROP TABLE clock_readings;
      DROP TRIGGER weekly_reviews_counted; DROP TRIGGER weekly_reviews_recounted;
      PRAGMA user_version = 0;
      INSERT INTO weekly_reviews (week_start, entry_count, mood_avg, summary, created_at) VALUES
        ('2026-11-09', 3, 3.3, 'Two weeks ago.', '2026-11-15T17:00:00.000Z'),
        ('2026-11-16', 2, 4.0, 'Last week.', '2026-11-22T17:00:00.000Z');
      INSERT INTO weekly_reviews (week_start, entry_count, mood_avg, summary, intentions, created_at)
        VALUES ('2026-11-23', 0, NULL, 'A day old.', '- sleep more', '2026-11-23T08:00:00.000Z');
    `);
    await h.restart();

    expect(h.rows("SELECT schedule FROM jobs WHERE skill = 'weekly_review'")).toEqual([
      { schedule: '0 22 * * 0' },
    ]);
    expect(
      journalRows('SELECT week_start, summary, intentions FROM weekly_reviews ORDER BY week_start'),
    ).toEqual([
      { week_start: '2026-11-09', summary: 'Two weeks ago.', intentions: null },
      { week_start: '2026-11-16', summary: 'Last week.', intentions: '- sleep more' },
    ]);
    expect(journalRows('PRAGMA user_version')).toEqual([{ user_version: 1 }]);
    expect(journalRows('SELECT count(*) AS n FROM clock_readings')).toEqual([{ n: 0 }]);
  });
});
