/**
 * Pack actions on Telegram (SPEC §3): a skill shows an action keyboard with send_message, and
 * each press runs the pack's SQL and edits that message, in the chat's lane, with no model
 * call; only the person whose home it is may press (§19); a failed action changes nothing; a
 * button works after a restart; `then: ask` hands over to the model.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { toolResults, userTexts } from '../fakes/model-requests.ts';
import type { ApiCall } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

// Made first, so its folders are removed after the harness that reads them has closed.
const temp = tempDirs('satchel-actions-');
const h = harnessPerTest();
const CARDS = fileURLToPath(new URL('../fixtures/action-packs/cards', import.meta.url));
const START = { label: 'Start', action: 'start' };

async function start(env: Record<string, string> = {}) {
  const packs = temp();
  cpSync(CARDS, path.join(packs, 'cards'), { recursive: true });
  await h.start({ SATCHEL_PACKS: packs, ...env });
}

/** The model's turn for `/review`: a keyboard with `buttons`, then a short answer. */
function showKeyboard(buttons: object[] = [START]) {
  h.model.enqueue(
    {
      toolCalls: [
        { name: 'send_message', arguments: { kind: 'keyboard', text: 'Ready?', buttons } },
      ],
    },
    { text: 'Press Start.' },
  );
}

interface Button {
  text: string;
  callback_data: string;
}

/** The last message shown with a keyboard (sent or edited), its id and its buttons. */
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
    buttons: shown.params.reply_markup.inline_keyboard as Button[][],
  };
}

const messageIdOf = (call: ApiCall): number =>
  call.method === 'editMessageText' ? Number(call.params.message_id) : call.result.message_id;

/** Presses the button labelled `label` of the last keyboard, as `userId`. */
function press(label: string, userId = ALLOWED_USER, chatId?: number) {
  const { messageId, buttons } = lastKeyboard(chatId ?? userId);
  const button = buttons.flat().find((b) => b.text === label);
  if (!button) throw new Error(`no button "${label}" in ${JSON.stringify(buttons)}`);
  return h.tg.callback({
    userId,
    ...(chatId === undefined ? {} : { chatId }),
    messageId,
    data: button.callback_data,
  });
}

const labels = (call: ApiCall | undefined) =>
  (call?.params.reply_markup?.inline_keyboard as Button[][] | undefined)?.map((line) =>
    line.map((b) => b.text),
  );

/** The cards pack running, its keyboard shown by /review and Start pressed: the first card. */
async function reviewStarted(): Promise<void> {
  await start();
  showKeyboard();
  h.say('/review');
  await settled(h, 1);
  press('Start');
  await settled(h, 2);
}

/** Rows of the cards pack's database in a home (the owner's unless `home` names another). */
function packRows(sql: string, ...home: string[]): unknown[] {
  const db = new Database(path.join(h.home, 'packs', 'cards', ...home, 'pack.db'), {
    readonly: true,
  });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('a review by buttons', () => {
  it('each press runs its SQL and edits the message, with no model call', async () => {
    await start();
    showKeyboard();
    h.say('/review');
    await settled(h, 1);
    const calls = h.model.chatRequests().length;
    const keyboard = h.tg.texts(ALLOWED_USER).indexOf('Ready?');
    expect(keyboard).toBeGreaterThanOrEqual(0);
    expect(labels(h.tg.sent(ALLOWED_USER)[keyboard])).toEqual([['Start']]);

    press('Start');
    await settled(h, 2);
    const shown = h.tg.calls('editMessageText');
    expect(shown).toHaveLength(1);
    expect(shown[0]!.params.text).toBe('<b>perro</b> = dog');
    expect(labels(shown[0])).toEqual([['Again', 'Good'], ['Examples']]);
    await h.tg.waitForCalls('answerCallbackQuery', 1);
    expect(h.tg.calls('answerCallbackQuery').at(-1)?.params.text).toBeUndefined();

    press('Good');
    await settled(h, 3);
    press('Again');
    await settled(h, 4);
    press('Good');
    await settled(h, 5);
    const edits = h.tg.calls('editMessageText');
    expect(edits.map((e) => e.params.message_id)).toEqual(
      Array(4).fill(edits[0]!.params.message_id),
    );
    // A value's Markdown and HTML characters show as written.
    expect(edits.map((e) => e.params.text)).toEqual([
      '<b>perro</b> = dog',
      '<b>gato</b> = cat',
      '<b>*uno* &lt;i&gt;</b> = _doce_',
      'All done: 3 graded.',
    ]);
    expect(edits[3]!.params.reply_markup).toBeUndefined();
    expect(h.model.chatRequests()).toHaveLength(calls);

    // The grades, and what the trigger keeps exact.
    expect(packRows('SELECT card_id, grade FROM grades ORDER BY id')).toEqual([
      { card_id: 1, grade: 4 },
      { card_id: 2, grade: 1 },
      { card_id: 3, grade: 4 },
    ]);
    expect(packRows('SELECT id, reviews, score, last_grade FROM cards ORDER BY id')).toEqual([
      { id: 1, reviews: 1, score: 4, last_grade: 4 },
      { id: 2, reviews: 1, score: 1, last_grade: 1 },
      { id: 3, reviews: 1, score: 4, last_grade: 4 },
    ]);
    expect(h.logs('action_run').map((l) => [l.action, l.outcome])).toEqual([
      ['start', 'ok'],
      ['grade', 'ok'],
      ['grade', 'ok'],
      ['grade', 'ok'],
    ]);
    expect(h.logs('action_run')[1]).toMatchObject({ pack: 'cards', ms: expect.any(Number) });
  });

  it("runs in the chat's lane: a press during a turn waits for it", async () => {
    await reviewStarted();
    let release = () => {};
    h.model.enqueue({ text: 'Sure.', until: new Promise<void>((r) => (release = r)) });
    h.say('how many are left?');
    await h.model.waitForRequest(3);
    press('Good');
    await h.tg.waitForCalls('answerCallbackQuery', 2);
    // The press is answered at once, but runs only after the turn before it in the lane.
    expect(h.tg.calls('editMessageText')).toHaveLength(1);
    expect(packRows('SELECT * FROM grades')).toEqual([]);
    release();
    await settled(h, 4);
    const order = h.tg
      .calls()
      .filter((c) => c.method === 'editMessageText' || c.method === 'sendMessage')
      .slice(-2)
      .map((c) => c.params.text);
    expect(order).toEqual(['Sure.', '<b>gato</b> = cat']);
    expect(packRows('SELECT card_id FROM grades')).toEqual([{ card_id: 1 }]);
  });

  it('a second tap on a keyboard a press replaced hears it expired, and writes nothing', async () => {
    await reviewStarted();
    const first = lastKeyboard();
    press('Good');
    await settled(h, 3);
    // The keyboard that showed card 1 again (a slow second tap).
    const again = first.buttons.flat().find((b) => b.text === 'Good')!;
    h.tg.callback({ userId: ALLOWED_USER, messageId: first.messageId, data: again.callback_data });
    await settled(h, 4);
    // A press is answered apart from its update's settling: wait for the answer itself.
    await h.tg.waitForCalls('answerCallbackQuery', 3);
    expect(h.tg.calls('answerCallbackQuery').at(-1)?.params.text).toBe(
      'These buttons have expired.',
    );
    expect(packRows('SELECT card_id FROM grades')).toEqual([{ card_id: 1 }]);
    expect(h.tg.calls('editMessageText')).toHaveLength(2);
  });
});

describe('who may press', () => {
  it('in a group, only the owner: anyone else hears so, and nothing runs or is written', async () => {
    const colleague = 222;
    const group = -100555;
    await start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${colleague}`, GROUP_REPLY: 'all' });
    showKeyboard();
    h.tg.text({ userId: ALLOWED_USER, chatId: group, chatType: 'supergroup', text: '/review' });
    await settled(h, 1);
    press('Start', colleague, group);
    await settled(h, 2);
    await h.tg.waitForCalls('answerCallbackQuery', 1);
    expect(h.tg.calls('answerCallbackQuery').at(-1)?.params.text).toBe(
      'Only the owner can press these buttons.',
    );
    expect(h.tg.calls('editMessageText')).toHaveLength(0);

    press('Start', ALLOWED_USER, group);
    await settled(h, 3);
    expect(h.tg.calls('editMessageText')).toHaveLength(1);
    press('Good', colleague, group);
    await settled(h, 4);
    await h.tg.waitForCalls('answerCallbackQuery', 3);
    expect(h.tg.calls('answerCallbackQuery').at(-1)?.params.text).toBe(
      'Only the owner can press these buttons.',
    );
    // The group's own home (SPEC §19): nothing graded there, nor in the owner's.
    expect(packRows('SELECT * FROM grades', 'groups', `tg-${group}`)).toEqual([]);
    expect(packRows('SELECT * FROM grades')).toEqual([]);
    expect(h.tg.calls('editMessageText')).toHaveLength(1);
    expect(h.logs('action_run').map((l) => l.outcome)).toEqual(['refused', 'ok', 'refused']);
  });
});

describe('a failing action', () => {
  it('rolls back every statement; the user reads one sentence, and the keyboard stays', async () => {
    await start();
    showKeyboard([{ label: 'Bad', action: 'grade', params: { card: 1, grade: 9 } }]);
    h.say('/review');
    await settled(h, 1);
    press('Bad');
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(
      'The action "grade" failed and changed nothing: CHECK constraint failed: last_grade BETWEEN 0 AND 5',
    );
    expect(h.tg.calls('editMessageText')).toHaveLength(0);
    expect(packRows('SELECT * FROM grades')).toEqual([]);
    expect(packRows('SELECT reviews FROM cards WHERE id = 1')).toEqual([{ reviews: 0 }]);
    expect(h.logs('action_run').at(-1)).toMatchObject({ outcome: 'failed', action: 'grade' });

    // Not consumed: pressed again, it fails again the same way.
    press('Bad');
    await settled(h, 3);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toMatch(/^The action "grade" failed/);
  });

  it('send_message refuses a button naming no action of the pack, or missing a parameter', async () => {
    await start();
    showKeyboard([
      { label: 'Nope', action: 'nope' },
      { label: 'Half', action: 'grade', params: { card: 1 } },
    ]);
    h.say('/review');
    await settled(h, 1);
    expect(toolResults(h.model.chatRequests()[1])).toEqual([
      'Error: button "Nope": action "nope" is not one of this pack\'s actions (start, grade, explain); button "Half": params misses "grade", a parameter of action "grade"',
    ]);
    expect(h.rows('SELECT * FROM action_keyboards')).toEqual([]);
  });
});

describe('durable buttons', () => {
  it('a keyboard shown before a restart works after it', async () => {
    await reviewStarted();
    await h.restart();
    press('Good');
    await settled(h, 3);
    expect(h.tg.calls('editMessageText').at(-1)?.params.text).toBe('<b>gato</b> = cat');
    expect(packRows('SELECT card_id, grade FROM grades')).toEqual([{ card_id: 1, grade: 4 }]);
  });
});

describe('then: ask', () => {
  it('shows its reply, then the model answers, told what was pressed and what it showed', async () => {
    await reviewStarted();
    const calls = h.model.chatRequests().length;
    h.model.enqueue({ text: 'El perro come. Mi perro duerme.' });
    press('Examples');
    await settled(h, 3);
    expect(h.model.chatRequests()).toHaveLength(calls + 1);
    expect(userTexts(h.model.chatRequests().at(-1)!).at(-1)).toBe(
      '[The user pressed the button "Examples" of Flashcards; the message now shows:]\nLooking for examples of **perro**…\n\nGive two short example sentences with "perro" (dog).',
    );
    // `message: new`: the reply is a message of its own, and the card keeps its keyboard.
    expect(h.tg.texts(ALLOWED_USER).slice(-2)).toEqual([
      'Looking for examples of <b>perro</b>…',
      'El perro come. Mi perro duerme.',
    ]);
    expect(h.tg.calls('editMessageText')).toHaveLength(1);
    press('Good');
    await settled(h, 4);
    expect(h.tg.calls('editMessageText').at(-1)?.params.text).toBe('<b>gato</b> = cat');
  });
});
