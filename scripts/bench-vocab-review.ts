/**
 * Vocab review benchmark (not a test; issue 46, SPEC §3 "Packs behave like apps"): satchel in
 * its own process with the bundled vocab pack, against the fake Telegram and the fake model.
 * A deck with BENCH_CARDS due cards (half learned, half new) is seeded, then `/review`, then
 * each card's Show answer and grade (Again, Hard, Good, Easy in turn) is pressed, one press at
 * a time, BENCH_GAP_MS after the edit of the press before (a person reads the card first):
 *
 *   press → edit = the fake Telegram received the editMessageText − getUpdates served the
 *                  callback update
 *   model calls  = the chat requests the fake model got, the whole review
 *   tokens       = the ledger's (usage_events) input and output tokens, the whole review
 *
 * Targets: at most 1 model call in all, at most 5,000 tokens, press → edit p95 ≤ 100 ms. A
 * miss is printed as a `MISS:` line on stderr and the script exits 1, like the other benches.
 * A second review presses back to back (no gap), for the record: past about 12 presses a
 * second (two Bot API calls each: the callback's answer and the edit) the bot-wide limit of
 * 25 calls a second holds a press until its window frees.
 *
 *   npx tsx scripts/bench-vocab-review.ts     (part of: npm run bench)
 *
 * Knobs: BENCH_CARDS (due cards, default 20), BENCH_GAP_MS (between a press's edit and the
 * next press, default 250: faster than anyone reads a card).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPack } from '../src/packs/loader.ts';
import { openPackStorage } from '../src/packs/storage.ts';
import { Database } from '../src/store/sqlite.ts';
import { FakeModel } from '../test/fakes/model-server.ts';
import { type ApiCall, FakeTelegram, TEST_TOKEN } from '../test/fakes/telegram-server.ts';
import { spawnBot } from './bench/bot-control.ts';
import { MODEL } from './bench/rig.ts';
import { markdownTable, ms, p50, p95, sleep, table, until, verdict } from './bench/stats.ts';

const CARDS = Number(process.env.BENCH_CARDS ?? 20);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 250);
const USER = 7301;
const GRADES = ['Again', 'Hard', 'Good', 'Easy'];
const TARGET = { modelCalls: 1, tokens: 5_000, p95Ms: 100 };
const VOCAB = fileURLToPath(new URL('../packs/vocab', import.meta.url));

/** The vocab pack's database in `home`, made as a start makes it, with `n` cards due today. */
function seed(home: string, packsDir: string, n: number): void {
  const storage = openPackStorage(home, loadPack(path.join(packsDir, 'vocab')));
  try {
    const { db } = storage;
    db.prepare("INSERT INTO decks (name) VALUES ('Spanish')").run();
    const card = db.prepare(
      `INSERT INTO cards (deck_id, front, back, example, state, repetitions, interval_days, due_on)
       VALUES (1, ?, ?, ?, ?, ?, ?, date('now'))`,
    );
    for (let i = 1; i <= n; i++) {
      const learned = i <= n / 2;
      card.run(
        `palabra ${i}`,
        `word ${i}`,
        `Una frase con la palabra ${i}.`,
        learned ? 'review' : 'new',
        learned ? 2 : 0,
        learned ? 6 : 0,
      );
    }
  } finally {
    storage.close();
  }
}

interface Button {
  text: string;
  callback_data: string;
}

/** The private chat's messages shown with a keyboard (sent or edited), oldest first. */
const shown = (tg: FakeTelegram): ApiCall[] =>
  tg
    .calls()
    .filter(
      (c) =>
        (c.method === 'sendMessage' || c.method === 'editMessageText') &&
        Number(c.params.chat_id) === USER,
    );

/** Presses `label` on the last message; resolves with the ms from the update served to the edit. */
async function press(tg: FakeTelegram, label: string): Promise<number> {
  const before = shown(tg);
  const last = before.at(-1)!;
  const buttons = ((last.params.reply_markup?.inline_keyboard ?? []) as Button[][]).flat();
  const button = buttons.find((b) => b.text === label);
  if (!button) throw new Error(`no "${label}" on the last message: ${last.params.text}`);
  const messageId =
    last.method === 'editMessageText' ? Number(last.params.message_id) : last.result.message_id;
  const update = tg.callback({ userId: USER, messageId, data: button.callback_data });
  const edit = await until(
    () =>
      shown(tg)
        .slice(before.length)
        .find((c) => c.method === 'editMessageText'),
    `the edit after "${label}"`,
  );
  const served = tg.servedAt(update);
  if (served === undefined) throw new Error(`"${label}": its update was never served`);
  return edit.receivedAt - served;
}

/** Tokens the ledger booked (input and output, every model call). */
function ledgerTokens(home: string): number {
  const db = new Database(path.join(home, 'satchel.db'), { readonly: true });
  try {
    const row = db
      .prepare(
        "SELECT coalesce(sum(input_tokens + output_tokens), 0) AS n FROM usage_events WHERE kind = 'llm'",
      )
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

interface Review {
  /** ms from each press's update served to its edit received. */
  presses: number[];
  /** ms from /review's update served to the first card received. */
  opened: number;
  graded: number;
  calls: number;
  tokens: number;
  /** The message once the last card was graded. */
  summary: string;
}

/**
 * One review on a fresh home: `/review`, then each card's Show answer and grade, a press
 * `gapMs` after the edit of the one before.
 */
async function review(gapMs: number): Promise<Review> {
  const root = mkdtempSync(path.join(tmpdir(), 'satchel-bench-vocab-'));
  const packsDir = path.join(root, 'packs');
  const home = path.join(root, 'home');
  cpSync(VOCAB, path.join(packsDir, 'vocab'), { recursive: true });
  seed(home, packsDir, CARDS);
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  // The review needs no words: any model request is counted (and answered, so nothing hangs).
  model.setDefault(() => ({ text: 'ok' }));
  const bot = await spawnBot('satchel', {
    TELEGRAM_BOT_TOKEN: TEST_TOKEN,
    TELEGRAM_API_ROOT: tg.apiRoot,
    OPENAI_BASE_URL: `${model.url}/v1`,
    OPENAI_API_KEY: 'sk-bench',
    LLM_MODEL: MODEL,
    ALLOWED_USER_IDS: String(USER),
    SATCHEL_HOME: home,
    SATCHEL_PACKS: packsDir,
    BATCH_WINDOW_MS: '0',
    SATCHEL_TIMEZONE: 'UTC',
    LOG_LEVEL: 'info',
    DASHBOARD_PORT: '0',
  });
  const presses: number[] = [];
  let opened = Number.NaN;
  let graded = 0;
  try {
    const update = tg.text({ userId: USER, text: '/review' });
    const first = await until(
      () => shown(tg).find((c) => c.method === 'sendMessage' && c.params.reply_markup),
      'the first card',
    );
    opened = first.receivedAt - (tg.servedAt(update) ?? Number.NaN);
    for (let i = 0; i < CARDS; i++) {
      for (const label of ['Show answer', GRADES[i % GRADES.length]!]) {
        await sleep(gapMs);
        presses.push(await press(tg, label));
      }
      graded++;
    }
  } finally {
    await bot.stop();
    await tg.stop();
    await model.stop();
  }
  const result = {
    presses,
    opened,
    graded,
    calls: model.chatRequests().length,
    tokens: ledgerTokens(home),
    summary: String(shown(tg).at(-1)?.params.text ?? ''),
  };
  rmSync(root, { recursive: true, force: true });
  return result;
}

const timings = (name: string, values: readonly number[]) => [
  name,
  String(values.length),
  ms(p50(values)),
  ms(p95(values)),
  ms(Math.max(...values)),
];

async function main(): Promise<number> {
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(
    `vocab review benchmark — node ${process.version}, ${cpus().length} CPU(s), load ${load.join(' ')} at start; ` +
      `${CARDS} due cards (${Math.ceil(CARDS / 2)} learned, ${Math.floor(CARDS / 2)} new), Show answer + a grade each\n`,
  );
  const paced = await review(GAP_MS);
  const rushed = await review(0);
  console.log(
    `${paced.graded} cards graded; the last message: ${paced.summary.replace(/\n+/g, ' ')}\n`,
  );
  console.log(
    table(
      ['', 'n', 'p50', 'p95', 'max'],
      [
        timings('/review → first card', [paced.opened]),
        timings(`press → edited message, ${GAP_MS} ms apart`, paced.presses),
        timings('press → edited message, back to back', rushed.presses),
      ],
    ),
  );
  const rows = [
    [
      `model calls, the whole review (${CARDS} cards)`,
      String(paced.calls),
      `≤ ${TARGET.modelCalls}`,
      verdict(paced.calls, TARGET.modelCalls),
    ],
    [
      'tokens, the whole review (ledger)',
      String(paced.tokens),
      `≤ ${TARGET.tokens.toLocaleString('en')}`,
      verdict(paced.tokens, TARGET.tokens),
    ],
    [
      `press → edited message, p50 (p95), presses ${GAP_MS} ms apart`,
      `${ms(p50(paced.presses))} (${ms(p95(paced.presses))})`,
      `p95 ≤ ${TARGET.p95Ms} ms`,
      verdict(p95(paced.presses), TARGET.p95Ms),
    ],
    [
      'press → edited message, p50 (p95), back to back',
      `${ms(p50(rushed.presses))} (${ms(p95(rushed.presses))})`,
      'reported',
      '—',
    ],
    ['/review → first card', ms(paced.opened), 'reported', '—'],
  ];
  const end = loadavg().map((l) => l.toFixed(1));
  console.log(`\nSummary (load ${load.join(' ')} → ${end.join(' ')})\n`);
  console.log(markdownTable(['figure', 'measured', 'target', ''], rows));
  const misses = rows.filter((r) => r[3] === 'MISS');
  for (const [name, run] of [
    ['paced', paced],
    ['back to back', rushed],
  ] as const)
    if (run.graded < CARDS)
      misses.push([`cards graded, ${name}`, String(run.graded), String(CARDS), 'MISS']);
  for (const [figure, measured, target] of misses)
    console.error(`MISS: ${figure}: ${measured}, target ${target}`);
  return misses.length;
}

main().then(
  (misses) => process.exit(misses > 0 ? 1 : 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
