/**
 * One bot under test in its own process, so that its work and the fakes' never share an
 * event loop (Telegram and the model provider are not in the bot's process either):
 * `satchel` — createApp on SATCHEL_HOME — or `bare` (bare-bot.ts), both configured from
 * the environment. Driven over IPC by the pipeline benchmark (see bot-control.ts):
 *
 *   → { type: 'ready', importMs, createMs, startMs }   (ms since this process started)
 *   ← { type: 'cpu' }    → { type: 'cpu', ms }   (user + system CPU time so far)
 *   ← { type: 'stats' }  → { type: 'stats', rssMb, rssAfterGcMb, peakRssMb, heapMb, … }
 *   ← { type: 'stop' }   → { type: 'stopped' }, then exit
 */
import { performance } from 'node:perf_hooks';

export type BotKind = 'satchel' | 'bare';

export interface BotStats {
  /** Resident memory now; after a full garbage collection; the most it ever was. */
  rssMb: number;
  rssAfterGcMb: number;
  peakRssMb: number;
  heapMb: number;
  heapTotalMb: number;
  externalMb: number;
}

export type ToBot = { type: 'cpu' } | { type: 'stats' } | { type: 'stop' };
export type FromBot =
  | { type: 'ready'; importMs: number; createMs: number; startMs: number }
  | { type: 'cpu'; ms: number }
  | ({ type: 'stats' } & BotStats)
  | { type: 'stopped' }
  | { type: 'failed'; error: string };

interface Running {
  stop(): Promise<void>;
}

const send = (message: FromBot) => process.send?.(message);
const mb = (bytes: number) => bytes / 1024 / 1024;

async function startSatchel(): Promise<Running & { importMs: number; createMs: number }> {
  const { createApp } = await import('../../src/app.ts');
  const { parseConfig } = await import('../../src/config/config.ts');
  const importMs = performance.now();
  // Logs are made (serialized) as in production, and dropped instead of written
  // (BENCH_LOGS=1 writes them to stderr, to see why a run stalls).
  const app = createApp(parseConfig(process.env), {
    logDestination: process.env.BENCH_LOGS ? process.stderr : { write: () => true },
    announce: () => undefined,
  });
  const createMs = performance.now();
  await app.start();
  return { importMs, createMs, stop: () => app.stop() };
}

async function startBare(): Promise<Running & { importMs: number; createMs: number }> {
  const { createBareBot } = await import('./bare-bot.ts');
  const importMs = performance.now();
  const bot = createBareBot({
    token: process.env.TELEGRAM_BOT_TOKEN ?? '',
    apiRoot: process.env.TELEGRAM_API_ROOT ?? '',
    modelUrl: process.env.OPENAI_BASE_URL ?? '',
    model: process.env.LLM_MODEL ?? 'gpt-4.1-mini',
  });
  const createMs = performance.now();
  await bot.start();
  return { importMs, createMs, stop: () => bot.stop() };
}

async function main(kind: BotKind): Promise<void> {
  const bot = kind === 'satchel' ? await startSatchel() : await startBare();
  send({
    type: 'ready',
    importMs: bot.importMs,
    createMs: bot.createMs,
    startMs: performance.now(),
  });
  process.on('message', async (message: ToBot) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', ms: (user + system) / 1000 });
    } else if (message.type === 'stats') {
      const rssMb = mb(process.memoryUsage.rss());
      (globalThis as { gc?: () => void }).gc?.();
      const memory = process.memoryUsage();
      send({
        type: 'stats',
        rssMb,
        rssAfterGcMb: mb(memory.rss),
        peakRssMb: process.resourceUsage().maxRSS / 1024,
        heapMb: mb(memory.heapUsed),
        heapTotalMb: mb(memory.heapTotal),
        externalMb: mb(memory.external),
      });
    } else if (message.type === 'stop') {
      await bot.stop();
      process.send?.({ type: 'stopped' } satisfies FromBot, () => process.exit(0));
    }
  });
}

main(process.argv[2] === 'bare' ? 'bare' : 'satchel').catch((error: unknown) => {
  send({ type: 'failed', error: String((error as Error)?.stack ?? error) });
  process.exit(1);
});
