/**
 * The bundled vocab pack on Telegram (fake Bot API and model), for what its `pack test` files
 * cannot show: `/review` opens with no model call and is one message edited at each press; a
 * replaced keyboard grades nothing twice; only the owner may start it in a group; the morning
 * job counts today's cards within the daily limit of new cards; and a home with vocab 1.0's
 * data is brought up by migration 0001 (card states) and reviews on at once.
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

const temp = tempDirs('satchel-vocab-');
const h = harnessPerTest();
const VOCAB = fileURLToPath(new URL('../../packs/vocab', import.meta.url));
const HOUR = 3_600_000;
/** Monday 23 November 2026, 10:00 in Berlin (09:00 UTC). */
const MONDAY = Date.UTC(2026, 10, 23, 9, 0, 0);
let clock: JumpClock;

/** satchel with only the bundled vocab pack, in Berlin, on a clock the test moves. */
async function start(env: Record<string, string> = {}) {
  const packs = temp();
  cpSync(VOCAB, path.join(packs, 'vocab'), { recursive: true });
  clock = new JumpClock(MONDAY);
  await h.start(
    { SATCHEL_PACKS: packs, SATCHEL_TIMEZONE: 'Europe/Berlin', ...env },
    { app: { clock } },
  );
}

/** The vocab database of a home (the owner's unless `home` names another). */
function vocabDb(root: string, ...home: string[]): Database {
  return new Database(path.join(root, 'packs', 'vocab', ...home, 'pack.db'));
}

function packRows(sql: string, ...params: unknown[]): unknown[] {
  const db = vocabDb(h.env.SATCHEL_HOME!);
  try {
    return db.prepare(sql).all(...params);
  } finally {
    db.close();
  }
}

/** `n` new cards due today (2026-11-23) in a Spanish deck, and `learned` due review cards. */
function seed(n: number, learned = 0): void {
  const db = vocabDb(h.env.SATCHEL_HOME!);
  try {
    db.prepare("INSERT INTO decks (name) VALUES ('Spanish')").run();
    const card = db.prepare(
      "INSERT INTO cards (deck_id, front, back, due_on, state, repetitions, interval_days) VALUES (1, ?, ?, '2026-11-23', ?, ?, ?)",
    );
    for (let i = 1; i <= learned; i++) card.run(`sabido ${i}`, `known ${i}`, 'review', 2, 6);
    for (let i = 1; i <= n; i++) card.run(`palabra ${i}`, `word ${i}`, 'new', 0, 0);
  } finally {
    db.close();
  }
}

interface Button {
  text: string;
  callback_data: string;
}

/** The last message shown with a keyboard (sent or edited): its id and its buttons. */
function lastKeyboard(chatId: number = ALLOWED_USER) {
  const shown = h.tg
    .calls()
    .filter(
      (c) =>
        (c.method === 'sendMessage' || c.method === 'editMessageText') &&
        String(c.params.chat_id) === String(chatId) &&
        c.params.reply_markup,
    )
    .at(-1);
  if (!shown) throw new Error('no keyboard shown');
  return {
    messageId: messageIdOf(shown),
    buttons: (shown.params.reply_markup.inline_keyboard as Button[][]).flat(),
  };
}

const messageIdOf = (call: ApiCall): number =>
  call.method === 'editMessageText' ? Number(call.params.message_id) : call.result.message_id;

/** Presses `label` on the last keyboard, as `userId` in `chatId` (their private chat). */
function press(label: string, userId = ALLOWED_USER, chatId = userId) {
  const { messageId, buttons } = lastKeyboard(chatId);
  const button = buttons.find((b) => b.text === label);
  if (!button) throw new Error(`no button "${label}" in ${JSON.stringify(buttons)}`);
  return h.tg.callback({ userId, chatId, messageId, data: button.callback_data });
}

const edits = () => h.tg.calls('editMessageText');

describe('/review on Telegram', () => {
  it('opens with no model call, and every press edits the one message', async () => {
    await start();
    // The first /review makes the home's pack database: nothing is due yet.
    h.say('/review');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Nothing to review now.']);
    seed(2);

    h.say('/review');
    await settled(h, 2);
    const opened = h.tg.sent(ALLOWED_USER).at(-1)!;
    expect(opened.params.text).toBe('<b>palabra 1</b>\n\n<i>2 to go · new</i>');
    const card = opened.result.message_id;
    let updates = 2;
    for (const label of ['Show answer', 'Good', 'Show answer', 'Easy']) {
      press(label);
      await settled(h, ++updates);
    }
    expect(edits().map((e) => [Number(e.params.message_id), e.params.text])).toEqual([
      [card, '<b>palabra 1</b> — word 1'],
      [card, '<i>palabra 1: Good, next tomorrow.</i>\n\n<b>palabra 2</b>\n\n<i>1 to go · new</i>'],
      [card, '<b>palabra 2</b> — word 2'],
      [
        card,
        '<i>palabra 2: Easy, next in 4 days.</i>\n\n🎉 Done: 2 cards — Again 0 · Hard 0 · Good 1 · Easy 1. Tomorrow: 1 due.',
      ],
    ]);
    expect(edits().at(-1)!.params.reply_markup?.inline_keyboard ?? []).toEqual([]);
    expect(h.model.chatRequests()).toHaveLength(0);
    expect(h.logs('action_run').map((l) => [l.action, l.outcome])).toEqual([
      ['review', 'ok'],
      ['review', 'ok'],
      ['show', 'ok'],
      ['grade', 'ok'],
      ['show', 'ok'],
      ['grade', 'ok'],
    ]);
    // Good on a new card: 1 day; Easy: 4 (SM-2), from the person's day, 2026-11-23.
    expect(packRows('SELECT card_id, grade, reviewed_on, due_after FROM reviews')).toEqual([
      { card_id: 1, grade: 'good', reviewed_on: '2026-11-23', due_after: '2026-11-24' },
      { card_id: 2, grade: 'easy', reviewed_on: '2026-11-23', due_after: '2026-11-27' },
    ]);
  });

  it('a tap on a keyboard a press replaced grades nothing twice', async () => {
    await start();
    h.say('/review');
    await settled(h, 1);
    seed(2);
    h.say('/review');
    await settled(h, 2);
    press('Show answer');
    await settled(h, 3);
    const graded = lastKeyboard();
    press('Good');
    await settled(h, 4);
    // The same Good again, from the keyboard that press replaced.
    const good = graded.buttons.find((b) => b.text === 'Good')!;
    h.tg.callback({ userId: ALLOWED_USER, messageId: graded.messageId, data: good.callback_data });
    await settled(h, 5);
    expect(h.tg.calls('answerCallbackQuery').at(-1)?.params.text).toBe(
      'These buttons have expired.',
    );
    expect(packRows('SELECT count(*) AS n FROM reviews')).toEqual([{ n: 1 }]);
    expect(edits()).toHaveLength(2);
  });

  it('in a group, only the owner starts it: anyone else hears so, and nothing is written', async () => {
    const colleague = 222;
    const group = -100555;
    await start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${colleague}`, GROUP_REPLY: 'all' });
    h.tg.text({ userId: colleague, chatId: group, chatType: 'supergroup', text: '/review' });
    await settled(h, 1);
    expect(h.tg.texts(group)).toEqual(['Only the owner can press these buttons.']);
    h.tg.text({ userId: ALLOWED_USER, chatId: group, chatType: 'supergroup', text: '/review' });
    await settled(h, 2);
    expect(h.tg.texts(group).at(-1)).toBe('Nothing to review now.');
    // The group's own home (SPEC §19) has the owner's session only.
    const db = vocabDb(h.env.SATCHEL_HOME!, 'groups', `tg-${group}`);
    try {
      expect(db.prepare('SELECT count(*) AS n FROM review_sessions').all()).toEqual([{ n: 1 }]);
    } finally {
      db.close();
    }
    expect(h.logs('action_run').map((l) => l.outcome)).toEqual(['refused', 'ok']);
    expect(h.model.chatRequests()).toHaveLength(0);
  });
});

describe('the morning reminder', () => {
  it("counts today's cards within the daily limit of new ones, at 08:00 in the person's zone", async () => {
    await start();
    h.say('/review');
    await settled(h, 1);
    // A photo import of 60 words and 2 learned cards, all due today.
    seed(60, 2);
    const remind = readFileSync(path.join(VOCAB, 'skills', 'remind', 'SKILL.md'), 'utf8');
    const sql = /```sql\n([\s\S]*?)```/.exec(remind)![1]!;
    h.model.enqueue(
      { toolCalls: [{ name: 'db_query', arguments: { sql } }] },
      { text: '☀️ 22 cards due today (20 new). Send /review to start.' },
    );
    // Tuesday 08:00 in Berlin is 07:00 UTC: 22 hours after Monday 09:00 UTC.
    clock.advance(22 * HOUR);
    const sent = await h.tg.waitForCall('sendMessage', (c) =>
      String(c.params.text).startsWith('☀️'),
    );
    expect(sent.params.text).toBe('☀️ 22 cards due today (20 new). Send /review to start.');
    await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(1));
    const [, answer] = h.model.chatRequests();
    // Tuesday: the 2 learned cards (due since Monday, overdue) + 20 of the 60 new ones.
    expect(JSON.parse(toolResults(answer).at(-1)!)).toMatchObject({
      columns: ['due', 'new_cards', 'overdue', 'done_today', 'streak_at_stake'],
      rows: [[22, 20, 2, 0, null]],
    });
  });
});

/** vocab 1.0.0's tables, as its schema.sql made them. */
const VOCAB_1_0 = `
CREATE TABLE decks (id INTEGER PRIMARY KEY, name TEXT NOT NULL, front_lang TEXT, back_lang TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE UNIQUE INDEX decks_name ON decks (lower(name));
CREATE TABLE cards (id INTEGER PRIMARY KEY, deck_id INTEGER NOT NULL REFERENCES decks (id),
  front TEXT NOT NULL, back TEXT NOT NULL, example TEXT, notes TEXT,
  ease REAL NOT NULL DEFAULT 2.5, interval_days INTEGER NOT NULL DEFAULT 0,
  repetitions INTEGER NOT NULL DEFAULT 0, lapses INTEGER NOT NULL DEFAULT 0,
  due_on TEXT NOT NULL DEFAULT (date('now')), last_reviewed_on TEXT,
  suspended INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE UNIQUE INDEX cards_deck_front ON cards (deck_id, lower(trim(front)));
CREATE INDEX cards_due ON cards (suspended, due_on);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, card_id INTEGER NOT NULL REFERENCES cards (id),
  reviewed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  reviewed_on TEXT NOT NULL,
  grade TEXT NOT NULL CHECK (grade IN ('again', 'hard', 'good', 'easy')),
  ease_before REAL, ease_after REAL, interval_before INTEGER, interval_after INTEGER);
CREATE INDEX reviews_card ON reviews (card_id);
CREATE INDEX reviews_day ON reviews (reviewed_on);
`;

describe('a home with vocab 1.0 data', () => {
  it('gets card states from migration 0001, and its review goes on by buttons', async () => {
    const home = temp();
    mkdirSync(path.join(home, 'packs', 'vocab'), { recursive: true });
    const old = vocabDb(home);
    old.exec(VOCAB_1_0);
    // 1.0 set R = 0 on Again and counted every Again as a lapse.
    old.exec(`
      INSERT INTO decks (name) VALUES ('Spanish');
      INSERT INTO cards (deck_id, front, back, ease, interval_days, repetitions, lapses, due_on, last_reviewed_on) VALUES
        (1, 'uno', 'one', 2.5, 6, 2, 0, '2026-11-23', '2026-11-17'),
        (1, 'dos', 'two', 2.3, 1, 0, 1, '2026-11-22', '2026-11-21'),
        (1, 'tres', 'three', 2.3, 1, 0, 1, '2026-11-23', '2026-11-22'),
        (1, 'cuatro', 'four', 2.5, 0, 0, 0, '2026-11-23', NULL),
        (1, 'cinco', 'five', 2.5, 1, 1, 0, '2026-11-24', '2026-11-23');
      INSERT INTO reviews (card_id, reviewed_on, grade, interval_before, interval_after) VALUES
        (1, '2026-11-10', 'good', 0, 1), (1, '2026-11-11', 'good', 1, 6),
        (2, '2026-11-10', 'good', 0, 1), (2, '2026-11-11', 'good', 1, 6),
        (2, '2026-11-21', 'again', 6, 1),
        (3, '2026-11-22', 'again', 0, 1),
        (5, '2026-11-23', 'good', 0, 1);
    `);
    old.close();
    await start({ SATCHEL_HOME: home });
    h.say('/review');
    await settled(h, 1);
    // uno learned (R 2, I 6); dos forgotten at 6 days (relearning); tres failed as new
    // (learning); cuatro never reviewed (new); cinco one Good (learning).
    expect(packRows('SELECT front, state FROM cards ORDER BY id')).toEqual([
      { front: 'uno', state: 'review' },
      { front: 'dos', state: 'relearning' },
      { front: 'tres', state: 'learning' },
      { front: 'cuatro', state: 'new' },
      { front: 'cinco', state: 'learning' },
    ]);
    expect(packRows('SELECT id FROM reviews WHERE state_before = ?', 'new')).toEqual([
      { id: 1 },
      { id: 3 },
      { id: 6 },
      { id: 7 },
    ]);
    expect(packRows('PRAGMA user_version')).toEqual([{ user_version: 1 }]);
    // Due: dos (since Sunday), then uno and tres, then the new cuatro: 4.
    expect(h.tg.sent(ALLOWED_USER).at(-1)!.params.text).toBe(
      '<b>dos</b>\n\n<i>4 to go · relearning</i>',
    );
    press('Show answer');
    await settled(h, 2);
    press('Good');
    await settled(h, 3);
    // dos (relearning; E 2.3, I 1, R 0) Good: I 1, R 1, still relearning, due tomorrow.
    expect(
      packRows(
        "SELECT state, ease, interval_days, repetitions, lapses, due_on FROM cards WHERE front = 'dos'",
      ),
    ).toEqual([
      {
        state: 'relearning',
        ease: 2.3,
        interval_days: 1,
        repetitions: 1,
        lapses: 1,
        due_on: '2026-11-24',
      },
    ]);
    expect(edits().at(-1)!.params.text).toContain('<b>uno</b>\n\n<i>3 to go</i>');
  });
});
