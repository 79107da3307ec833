/**
 * The habits pack end to end, where a pack test cannot go (SPEC §3, §8): its jobs firing on
 * the clock through the real pipeline, grammY and the OpenAI SDK against the fakes. On Sunday
 * the evening nudge comes first with its check-in buttons, a tap records the check-in with no
 * model call and turns the message into the day's board, and the weekly report comes after
 * it and counts that tap. And a database made by habits 1.0 comes up to 2.0 at the next start,
 * a habit paused then keeping its streak instead of losing it. The model's SQL is the skills'
 * own, read from their SKILL.md.
 */
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { toolResults } from '../fakes/model-requests.ts';
import type { ApiCall } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { tempDirs } from '../support/temp-dirs.ts';

// Made first, so its folders are removed after the harness that reads them has closed.
const temp = tempDirs('satchel-habits-');
const h = harnessPerTest();
const HABITS = fileURLToPath(new URL('../../packs/habits', import.meta.url));
const SCHEMA_1_0 = fileURLToPath(new URL('../fixtures/habits-1.0/schema.sql', import.meta.url));
const HOUR = 3_600_000;

/** The first SQL block of a habits skill, as the model reads it there. */
function skillSql(skill: string): string {
  const text = readFileSync(path.join(HABITS, 'skills', skill, 'SKILL.md'), 'utf8');
  const block = /```sql\n([\s\S]*?)```/.exec(text)?.[1];
  if (!block) throw new Error(`${skill} has no SQL block`);
  return block.trim();
}

/** A packs folder holding a copy of the habits pack only. */
function habitsOnly(): string {
  const packs = temp();
  cpSync(HABITS, path.join(packs, 'habits'), { recursive: true });
  return packs;
}

/** Rows of the habits pack's database in the owner's home. */
function packRows(sql: string, home = h.home): unknown[] {
  const db = new Database(path.join(home, 'packs', 'habits', 'pack.db'), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

const call = (name: string, args: object) => ({ toolCalls: [{ name, arguments: args }] });

/** The rows of the db_query result the model read in its `request`-th request, as objects. */
function queried(request: number | undefined): Record<string, unknown>[] {
  const req =
    request === undefined ? h.model.chatRequests().at(-1) : h.model.chatRequests()[request];
  const { columns, rows } = JSON.parse(toolResults(req).at(-1) ?? '{}') as {
    columns: string[];
    rows: unknown[][];
  };
  return rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
}

interface Button {
  text: string;
  callback_data: string;
}

describe('habits: the Sunday evening', () => {
  it('the 21:00 nudge brings buttons, a tap checks off with no model call, and the 21:30 report counts it', async () => {
    // 10:00 UTC on Sunday 29 November 2026: 11:00 in Berlin.
    const clock = new JumpClock(Date.UTC(2026, 10, 29, 10, 0, 0));
    await h.start(
      { SATCHEL_PACKS: habitsOnly(), SATCHEL_TIMEZONE: 'Europe/Berlin' },
      { app: { clock } },
    );
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
          {
            name: 'db_write',
            arguments: {
              action: 'insert',
              table: 'habits',
              values: { name: 'Run', emoji: '🏃', target_per_week: 3, started_on: ':today' },
            },
          },
        ],
      },
      { text: 'Added 📖 Read (daily) and 🏃 Run (3× a week).' },
    );
    h.say('add reading every day and running 3 times a week');
    await settled(h, 1);
    await vi.waitFor(() =>
      expect(h.rows("SELECT skill FROM jobs WHERE pack = 'habits' ORDER BY skill")).toEqual([
        { skill: 'habit_report' },
        { skill: 'nudge' },
      ]),
    );

    // 21:00 in Berlin: the nudge. Read has no check-in today; Run started today, so its week
    // has one day on and a goal of round(3 × 1 / 7) = 0: nothing is due for it.
    const before = h.model.chatRequests().length;
    h.model.enqueue(
      call('db_query', { sql: skillSql('nudge') }),
      call('send_message', {
        kind: 'keyboard',
        text: '🌙 Still open today — tap what you did:',
        buttons: [
          {
            label: '📖 Read',
            action: 'mark',
            params: { habit: 1, day: '2026-11-29', status: 'done' },
          },
          { label: 'All habits · streaks', action: 'checkin', params: { day: '2026-11-29' } },
        ],
      }),
      { text: '📖 Read: tonight starts your streak.' },
    );
    clock.advance(10 * HOUR);
    const keyboard = await h.tg.waitForCall('sendMessage', (c) =>
      String(c.params.text).startsWith('🌙 Still open today'),
    );
    await h.tg.waitForCall('sendMessage', (c) => String(c.params.text).startsWith('📖 Read:'));
    await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(1));
    expect(queried(before + 1)).toEqual([
      {
        day: '2026-11-29',
        id: 1,
        label: '📖 Read',
        target_per_week: 7,
        why: null,
        done_this_week: 0,
        goal_this_week: 1,
        days_left: 1,
        current_streak: 0,
        unit: 'days',
      },
    ]);
    const buttons = keyboard.params.reply_markup.inline_keyboard as Button[][];
    expect(buttons.map((line) => line.map((b) => b.text))).toEqual([
      ['📖 Read'],
      ['All habits · streaks'],
    ]);

    // 21:10: the tap. One check-in, the message edited into the board, no model call.
    clock.advance(10 * 60_000);
    const calls = h.model.chatRequests().length;
    h.tg.callback({
      userId: ALLOWED_USER,
      data: buttons[0]![0]!.callback_data,
      messageId: keyboard.result.message_id,
    });
    const board: ApiCall = await h.tg.waitForCall('editMessageText');
    expect(board.params.message_id).toBe(keyboard.result.message_id);
    expect(board.params.text).toBe(
      '<b>Today, Sun 29 Nov</b> · 1/2 done\n✅ 📖 Read · 🔥 1 day\n⬜ 🏃 Run · 0 this week, no goal',
    );
    expect(
      (board.params.reply_markup.inline_keyboard as Button[][]).map((l) => l.map((b) => b.text)),
    ).toEqual([['✅ 📖 Read'], ['⬜ 🏃 Run'], ['Skip…', '◀ Yesterday', 'Close']]);
    expect(h.model.chatRequests()).toHaveLength(calls);
    expect(packRows('SELECT habit_id, log_date, status FROM habit_logs')).toEqual([
      { habit_id: 1, log_date: '2026-11-29', status: 'done' },
    ]);

    // 21:30: the report, after the nudge, of the week that ends today (23–29 Nov). Read: one
    // day on (it started today), goal round(7 × 1 / 7) = 1, done 1 (the tap); Run: goal 0, a
    // rest. 100 × min(1, 1) ÷ 1 = 100 %.
    h.model.enqueue(call('db_query', { sql: skillSql('habit_report'), params: ['ended'] }), {
      text: '📊 Week of 23 Nov — 100 % of goal',
    });
    clock.advance(20 * 60_000);
    await h.tg.waitForCall('sendMessage', (c) => String(c.params.text).startsWith('📊 Week'));
    await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(2));
    const pick = ({
      week_start,
      label,
      done,
      goal,
      result,
      week_percent,
      memory_line,
    }: Record<string, unknown>) => ({
      week_start,
      label,
      done,
      goal,
      result,
      week_percent,
      memory_line,
    });
    const line = '- 2026-11-23: 100% (Read 1/1, Run rest)';
    expect(queried(calls + 1).map(pick)).toEqual([
      {
        week_start: '2026-11-23',
        label: '📖 Read',
        done: 1,
        goal: 1,
        result: 'hit',
        week_percent: 100,
        memory_line: line,
      },
      {
        week_start: '2026-11-23',
        label: '🏃 Run',
        done: 0,
        goal: 0,
        result: 'rest',
        week_percent: 100,
        memory_line: line,
      },
    ]);
  });
});

describe('habits: a 1.0 database', () => {
  it('comes up to 2.0 at the next start: a habit paused then keeps its streak, frozen', async () => {
    // A home whose habits database was made by 1.0: Read daily since 1 Nov, done 10–14 Nov,
    // then paused (1.0 kept no date for that); Run logged on 2 Nov, before the day it was
    // added (3 Nov).
    const home = temp();
    mkdirSync(path.join(home, 'packs', 'habits'), { recursive: true });
    const old = new Database(path.join(home, 'packs', 'habits', 'pack.db'));
    old.exec(readFileSync(SCHEMA_1_0, 'utf8'));
    old.exec(`
      INSERT INTO habits (id, name, emoji, target_per_week, status, started_on) VALUES
        (1, 'Read', '📖', 7, 'paused', '2026-11-01'), (2, 'Run', '🏃', 3, 'active', '2026-11-03');
      INSERT INTO habit_logs (habit_id, log_date) VALUES
        (1, '2026-11-10'), (1, '2026-11-11'), (1, '2026-11-12'), (1, '2026-11-13'), (1, '2026-11-14'),
        (2, '2026-11-02');`);
    old.close();

    // Monday 30 November 2026, 09:00 UTC.
    const clock = new JumpClock(Date.UTC(2026, 10, 30, 9, 0, 0));
    await h.start({ SATCHEL_HOME: home, SATCHEL_PACKS: habitsOnly() }, { app: { clock } });
    h.model.enqueue(call('db_query', { sql: skillSql('streaks') }), { text: 'Read: 5 days.' });
    h.say('/streaks');
    await settled(h, 1);

    // The migration opened Read's pause the day after its last check-in (15 Nov), and moved
    // Run's start back to its first check-in.
    expect(packRows('SELECT habit_id, starts_on, ends_on FROM habit_pauses', home)).toEqual([
      { habit_id: 1, starts_on: '2026-11-15', ends_on: null },
    ]);
    expect(packRows('SELECT id, status, started_on FROM habits', home)).toEqual([
      { id: 1, status: 'paused', started_on: '2026-11-01' },
      { id: 2, status: 'active', started_on: '2026-11-02' },
    ]);
    // Read: 10–14 Nov done, 15–30 Nov paused: 5 days, kept (1.0 counted the paused days as
    // missed: 0). Run: no week on target.
    expect(
      queried(undefined).map(({ name, status, current_streak }) => ({
        name,
        status,
        current_streak,
      })),
    ).toEqual([
      { name: 'Read', status: 'paused', current_streak: 5 },
      { name: 'Run', status: 'active', current_streak: 0 },
    ]);
    expect(packRows('PRAGMA user_version', home)).toEqual([{ user_version: 1 }]);
  });
});
