/**
 * Outbox benchmark (not a test): the real outbox — grammY `Api` → Telegram channel → SQLite
 * store — against the fake Bot API server on localhost.
 *
 *   npx tsx scripts/bench.ts     (or: npm run bench)
 *
 * Reports (a) delivery throughput with the global limit raised out of the way (the outbox's
 * own overhead, localhost HTTP included) and at the default 25/s, (b) the cost of `write()`
 * alone (render + split + SQLite insert) for a typical answer, (c) peak RSS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Api } from 'grammy';
import { systemClock } from '../src/core/clock.ts';
import type { Address } from '../src/core/types.ts';
import { createLogger } from '../src/logging/logger.ts';
import { createOutbox, type ChannelOutbox as Outbox } from '../src/outbound/outbox.ts';
import { type CoreStore, openCoreStore } from '../src/store/client.ts';
import { createOutboxRepo } from '../src/store/outbox-repo.ts';
import { createTelegramChannel } from '../src/telegram/channel.ts';
import { telegramRenderer } from '../src/telegram/render.ts';
import { FakeTelegram, TEST_TOKEN } from '../test/fakes/telegram-server.ts';

/** A typical ~500-character model answer: heading, bold, code, a link and a list. */
const ANSWER = [
  '## Your week',
  '',
  'You have **three meetings** on Tuesday and a dentist appointment on Thursday at `14:30`.',
  'The project review moved to Friday; see [the calendar](https://calendar.example.com/w/42)',
  'for details. Remember to bring the *printed* budget sheet.',
  '',
  '- Monday: gym at 07:00, groceries after work',
  '- Tuesday: standup, design review, 1:1 with Sam',
  '- Wednesday: free — good day for deep work 🚀',
  '- Thursday: dentist, then pick up the parcel',
  '',
  'Anything you want me to move, or should I add reminders?',
].join('\n');

let warnings = 0;
const log = createLogger({
  level: 'warn',
  secrets: [TEST_TOKEN],
  destination: { write: () => void warnings++ },
});

interface Rig {
  store: CoreStore;
  outbox: Outbox;
  close(): void;
}

function openRig(tg: FakeTelegram, globalRatePerSecond?: number): Rig {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-bench-'));
  const store = openCoreStore(home);
  const outbox = createOutbox({
    repo: createOutboxRepo(store.db),
    channel: createTelegramChannel(new Api(TEST_TOKEN, { apiRoot: tg.apiRoot })),
    clock: systemClock,
    log,
    ...(globalRatePerSecond === undefined ? {} : { globalRatePerSecond }),
  });
  return {
    store,
    outbox,
    close() {
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const address = (chatId: number): Address => ({ platform: 'tg', chatId: String(chatId) });

interface Throughput {
  label: string;
  messages: number;
  chats: number;
  calls: number;
  wallMs: number;
}

/** Writes `messages` answers round-robin over `chats` chats, dispatches them all at once. */
async function throughput(
  tg: FakeTelegram,
  label: string,
  messages: number,
  chats: number,
  globalRatePerSecond?: number,
): Promise<Throughput> {
  const rig = openRig(tg, globalRatePerSecond);
  try {
    tg.clearCalls();
    const started = performance.now();
    const ids: number[] = [];
    for (let i = 0; i < messages; i++) {
      ids.push(
        ...rig.outbox.write(address(5000 + (i % chats)), { text: ANSWER, format: 'markdown' }),
      );
    }
    await rig.outbox.dispatch(ids);
    const wallMs = performance.now() - started;
    const calls = tg.calls('sendMessage').length;
    const unsent = rig.store.sqlite
      .prepare("SELECT COUNT(*) AS n FROM outbox WHERE status != 'sent'")
      .get() as { n: number };
    if (calls !== ids.length || unsent.n !== 0) {
      throw new Error(`${label}: ${ids.length} rows, ${calls} calls, ${unsent.n} unsent`);
    }
    return { label, messages, chats, calls, wallMs };
  } finally {
    rig.close();
  }
}

/** The same sends straight through the channel, `chats` at a time: no outbox, no limiter. */
async function baseline(tg: FakeTelegram, messages: number, chats: number): Promise<Throughput> {
  const channel = createTelegramChannel(new Api(TEST_TOKEN, { apiRoot: tg.apiRoot }));
  const html = telegramRenderer.text({ text: ANSWER, format: 'markdown' })[0]!.text;
  tg.clearCalls();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: chats }, async (_, c) => {
      for (let i = c; i < messages; i += chats) {
        await channel.sendText(address(6000 + c), html, { formatted: true });
      }
    }),
  );
  const wallMs = performance.now() - started;
  const label = 'baseline: channel only';
  return { label, messages, chats, calls: tg.calls('sendMessage').length, wallMs };
}

interface WriteCost {
  label: string;
  n: number;
  totalMs: number;
}

function writeCost(n: number): WriteCost[] {
  const tgless = { apiRoot: 'http://127.0.0.1:9' } as FakeTelegram; // write() never calls out
  const rig = openRig(tgless);
  try {
    const to = address(42);
    const message = { text: ANSWER, format: 'markdown' as const };
    for (let i = 0; i < 200; i++) telegramRenderer.text(message); // warm-up
    for (let i = 0; i < 200; i++) rig.outbox.write(to, message);

    let started = performance.now();
    for (let i = 0; i < n; i++) telegramRenderer.text(message);
    const composeMs = performance.now() - started;

    started = performance.now();
    for (let i = 0; i < n; i++) rig.outbox.write(to, message);
    const writeMs = performance.now() - started;

    started = performance.now();
    rig.store.db.transaction(() => {
      for (let i = 0; i < n; i++) rig.outbox.write(to, message);
    });
    const batchedMs = performance.now() - started;

    return [
      { label: 'render + split only (telegramRenderer.text)', n, totalMs: composeMs },
      { label: 'write(): render + split + insert', n, totalMs: writeMs },
      { label: 'write() x n in one transaction', n, totalMs: batchedMs },
    ];
  } finally {
    rig.close();
  }
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fixed = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const totalStarted = performance.now();
  const tg = await FakeTelegram.start();
  try {
    const parts = telegramRenderer.text({ text: ANSWER, format: 'markdown' });
    console.log(
      `outbox benchmark — node ${process.version}, answer: ${ANSWER.length} chars of Markdown ` +
        `→ ${parts.length} part(s), ${parts[0]?.text.length ?? 0} chars of HTML\n`,
    );

    await throughput(tg, 'warm-up', 50, 5, 100_000);
    const runs = [
      await baseline(tg, 500, 20),
      await throughput(tg, 'limit 100000/s (overhead)', 500, 20, 100_000),
      await throughput(tg, 'limit 25/s (default)', 100, 20),
    ];
    console.log('(a) delivery: write all, dispatch at once, until every row is marked sent');
    console.log(
      table(
        ['run', 'messages', 'chats', 'wall ms', 'msgs/s', 'ms/msg'],
        runs.map((r) => [
          r.label,
          String(r.messages),
          String(r.chats),
          fixed(r.wallMs, 0),
          fixed((r.messages / r.wallMs) * 1000),
          fixed(r.wallMs / r.messages, 2),
        ]),
      ),
    );
    console.log(
      '    note: the limiter lets `rate` calls through in any one-second window, counted from\n' +
        '    when each call ended, with no spacing inside the budget.\n',
    );

    const costs = writeCost(2000);
    console.log('(b) write() cost for the answer above (SQLite WAL, synchronous=NORMAL)');
    console.log(
      table(
        ['what', 'n', 'total ms', 'µs each'],
        costs.map((c) => [
          c.label,
          String(c.n),
          fixed(c.totalMs, 0),
          fixed((c.totalMs / c.n) * 1000),
        ]),
      ),
    );

    const peakMb = process.resourceUsage().maxRSS / 1024;
    console.log(`\n(c) peak RSS: ${fixed(peakMb)} MB`);
    console.log(
      `\ntotal ${fixed((performance.now() - totalStarted) / 1000)} s, ${warnings} warning log line(s)`,
    );
  } finally {
    await tg.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
