/**
 * Web chat benchmark (not a test). satchel runs as it ships, in its own process
 * (scripts/bench/bot-process.ts) beside its Telegram bot, on the fake Telegram and the fake
 * model; a client of the chat's HTTP endpoints (test/support/chat-client.ts, what the page
 * does) sends each line and reads `/chat/events`. Three figures:
 *
 * - First text: how long after the model's first streamed token the page receives its first
 *   text. The fake model streams slowly (`chunkDelayMs`), so its first content chunk stands
 *   alone; the figure is the first `draft` event's arrival − the moment the fake model wrote
 *   that chunk, both on this process's clock.
 * - Stream rate: how many times a second the page's text grows while the model streams
 *   faster than that (40 pieces, 50 ms apart: 20 a second for 2 s). The figure is the
 *   `draft` events a client received between the first and the last, per second between
 *   them (SPEC §16: at least 4).
 * - First text in the page: the same, seen by the owner: Chromium types each line into the
 *   page and records when its streamed answer's first text is in the DOM (after the events,
 *   the page's own work: markup rebuilt, the log followed). Skipped without Chromium.
 * - Page weight: the bytes a browser fetches from satchel to show `/chat` (its HTML, style
 *   sheets and script modules, scripts/bench/page-weight.ts), and apart from them those it
 *   fetches only when a message first has code or math (the highlighter and Temml).
 *
 *   npx tsx scripts/bench-web-chat.ts     (part of: npm run bench)
 *
 * Knobs: BENCH_TURNS (measured turns of each part, default 20).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { lastUserText } from '../test/fakes/model-server.ts';
import { ChatClient, type ChatEvent } from '../test/support/chat-client.ts';
import { spawnBot } from './bench/bot-control.ts';
import { pageFirstText } from './bench/page-first-text.ts';
import { kb, pageWeight, total } from './bench/page-weight.ts';
import { openRig } from './bench/rig.ts';
import { markdownTable, ms, p50, p95, table, verdict } from './bench/stats.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const OWNER = 6101;
const CHUNKS = 8;
const CHUNK_DELAY_MS = 120;
const TARGET_MS = 100;
/** The stream-rate part: 40 pieces 50 ms apart, and the least the page should see. */
const RATE_PIECES = 40;
const RATE_PIECE_MS = 50;
const TARGET_RATE = 4;
/** The most the page may weigh at load (what it fetches before the first text can show). */
const TARGET_LOAD_BYTES = 80 * 1024;
const FILLER =
  'Here is a longer answer that streams in slowly, one piece at a time, so that the draft ' +
  'has something to show while the rest of it is still being written.';

/** A port nothing listens on now (the dashboard takes it next). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Rig = Awaited<ReturnType<typeof openRig>>;

/** Sends `label` and waits for its answer; returns the events the answer brought. */
async function turn(chat: ChatClient, label: string): Promise<ChatEvent[]> {
  const before = chat.events.length;
  await chat.send(label);
  await chat.waitFor(
    () => chat.events.slice(before).find((e) => e.type === 'entry' && e.data.entry.kind === 'bot'),
    `the answer to ${label}`,
  );
  return chat.events.slice(before);
}

/** The fake model answers each line slowly, its first piece alone. */
function slowAnswers(rig: Rig): void {
  rig.model.setDefault((req) => ({
    text: `${lastUserText(req)}: ${FILLER}`,
    chunks: CHUNKS,
    chunkDelayMs: CHUNK_DELAY_MS,
  }));
}

/** First `draft` event − the fake model's first content chunk, per turn (ms). */
async function firstText(chat: ChatClient, rig: Rig): Promise<number[]> {
  slowAnswers(rig);
  const figures: number[] = [];
  // One turn first: binding the pack and opening the session happen once.
  for (let n = 0; n <= TURNS; n++) {
    const label = `web-first-${n}`;
    const events = await turn(chat, label);
    const request = rig.model.chatRequests().find((r) => lastUserText(r) === label);
    const draft = events.find((e) => e.type === 'draft');
    if (!request?.firstContentAt || !draft) throw new Error(`no draft for ${label}`);
    if (n > 0) figures.push(draft.at - request.firstContentAt);
  }
  return figures;
}

/** Draft events a second while the model streams 20 pieces a second, per turn. */
async function streamRate(chat: ChatClient, rig: Rig): Promise<number[]> {
  const words = Array.from({ length: RATE_PIECES * 3 }, (_, i) => `word${i}`).join(' ');
  rig.model.setDefault(() => ({
    text: words,
    chunks: RATE_PIECES,
    chunkDelayMs: RATE_PIECE_MS,
  }));
  const figures: number[] = [];
  for (let n = 0; n < TURNS; n++) {
    const drafts = (await turn(chat, `web-rate-${n}`)).filter((e) => e.type === 'draft');
    const span = (drafts.at(-1)?.at ?? 0) - (drafts[0]?.at ?? 0);
    figures.push(span > 0 ? ((drafts.length - 1) * 1000) / span : 0);
  }
  return figures;
}

async function main(): Promise<void> {
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(
    `web chat benchmark — node ${process.version}, ${cpus().length} CPU(s), load ${load.join(' ')}\n`,
  );
  const rig = await openRig();
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const bot = await spawnBot('satchel', {
    ...rig.env('satchel', rig.newHome(), [OWNER]),
    DASHBOARD_PORT: String(port),
    DASHBOARD_TOKEN: token,
  });
  const chat = await ChatClient.open(`http://127.0.0.1:${port}/chat?token=${token}`);
  let latency: number[];
  let rates: number[];
  let weight: Awaited<ReturnType<typeof pageWeight>>;
  let shown: number[] | undefined;
  try {
    weight = await pageWeight(async (path) => {
      const response = await fetch(new URL(path, chat.base), { headers: { cookie: chat.cookie } });
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    });
    await chat.connect();
    latency = await firstText(chat, rig);
    rates = await streamRate(chat, rig);
    slowAnswers(rig);
    shown = await pageFirstText(
      `http://127.0.0.1:${port}/chat?token=${token}`,
      TURNS,
      (label) => rig.model.chatRequests().find((r) => lastUserText(r) === label)?.firstContentAt,
    );
  } finally {
    chat.close();
    await bot.stop();
    await rig.close();
  }
  const perSecond = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)}/s` : '—');
  const worst = Math.min(...rates);
  const rows = [
    [
      'web chat: first draft event after the first token',
      ms(p50(latency)),
      ms(p95(latency)),
      `≤ ${TARGET_MS} ms`,
      verdict(p95(latency), TARGET_MS),
    ],
    [
      'web chat: first text in the page (Chromium) after the first token',
      shown ? ms(p50(shown)) : 'no Chromium',
      shown ? ms(p95(shown)) : '—',
      `≤ ${TARGET_MS} ms`,
      shown ? verdict(p95(shown), TARGET_MS) : '—',
    ],
    [
      `web chat: page updates while the model streams ${1000 / RATE_PIECE_MS} pieces/s`,
      perSecond(p50(rates)),
      perSecond(worst),
      `≥ ${TARGET_RATE}/s`,
      worst >= TARGET_RATE ? 'ok' : 'MISS',
    ],
    [
      `web chat: page weight at load (${weight.atLoad.size} files)`,
      kb(total(weight.atLoad)),
      '—',
      `≤ ${kb(TARGET_LOAD_BYTES)}`,
      total(weight.atLoad) <= TARGET_LOAD_BYTES ? 'ok' : 'MISS',
    ],
    [
      `web chat: fetched once a message has code or math (${weight.later.size} files)`,
      kb(total(weight.later)),
      '—',
      '—',
      '',
    ],
  ];
  console.log(`The web chat's page (${TURNS} turns each)`);
  console.log(table(['where', 'p50', 'p95 / worst', 'target', ''], rows));
  console.log();
  console.log(
    markdownTable(
      ['figure', 'measured (p50; p95 of the latency, worst turn of the rate)', 'target', ''],
      rows.map((r) => [r[0]!, `${r[1]} (${r[2]})`, r[3]!, r[4]!]),
    ),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
