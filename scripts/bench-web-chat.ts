/**
 * Web chat benchmark (not a test): how long after the model's first streamed token the web
 * chat's page receives its first text. satchel runs as it ships, in its own process
 * (scripts/bench/bot-process.ts) beside its Telegram bot, on the fake Telegram and the fake
 * model; a client of the chat's HTTP endpoints (test/support/chat-client.ts, what the page
 * does) sends each line and reads `/chat/events`. The fake model streams slowly
 * (`chunkDelayMs`), so its first content chunk stands alone; the figure is the first `draft`
 * event's arrival − the moment the fake model wrote that chunk, both on this process's clock.
 *
 *   npx tsx scripts/bench-web-chat.ts     (part of: npm run bench)
 *
 * Knobs: BENCH_TURNS (measured turns, default 20).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { lastUserText } from '../test/fakes/model-server.ts';
import { ChatClient } from '../test/support/chat-client.ts';
import { spawnBot } from './bench/bot-control.ts';
import { openRig } from './bench/rig.ts';
import { markdownTable, ms, p50, p95, table, until, verdict } from './bench/stats.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const OWNER = 6101;
const CHUNKS = 8;
const CHUNK_DELAY_MS = 120;
const TARGET_MS = 100;
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
  const figures: number[] = [];
  try {
    await chat.connect();
    rig.model.setDefault((req) => ({
      text: `${lastUserText(req)}: ${FILLER}`,
      chunks: CHUNKS,
      chunkDelayMs: CHUNK_DELAY_MS,
    }));
    // One turn first: binding the pack and opening the session happen once.
    for (let turn = 0; turn <= TURNS; turn++) {
      const label = `web-first-${turn}`;
      const before = chat.events.length;
      await chat.send(label);
      const request = await until(
        () => rig.model.chatRequests().find((r) => lastUserText(r) === label && r.firstContentAt),
        `the answer to ${label}`,
      );
      const draft = await chat.waitFor(
        () => chat.events.slice(before).find((e) => e.type === 'draft'),
        `the first draft of ${label}`,
      );
      if (turn > 0) figures.push(draft.at - request.firstContentAt!);
      await chat.waitFor(
        () =>
          chat.events.slice(before).find((e) => e.type === 'entry' && e.data.entry.kind === 'bot'),
        `the answer to ${label}`,
      );
    }
  } finally {
    chat.close();
    await bot.stop();
    await rig.close();
  }
  const row = [
    'web chat: first draft event after the first token',
    ms(p50(figures)),
    ms(p95(figures)),
    `≤ ${TARGET_MS} ms`,
    verdict(p95(figures), TARGET_MS),
  ];
  console.log(`First text the web chat's page receives (ms, ${TURNS} turns)`);
  console.log(table(['where', 'p50', 'p95', 'target', ''], [row]));
  console.log();
  console.log(
    markdownTable(
      ['figure', 'measured (p50, p95 in brackets)', 'target', ''],
      [[row[0]!, `${row[1]} (${row[2]})`, row[3]!, row[4]!]],
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
