/**
 * Scale: the memory of a bot that has served many conversations and is idle, and how long
 * it takes to start polling with a long history in its database.
 */
import { type BotChild, type BotStats, spawnBot } from './bot-control.ts';
import type { Rig } from './rig.ts';
import { seedHome } from './seed.ts';
import { p50, sleep, until } from './stats.ts';

const FIRST_USER = 800_000;

export interface IdleMemory extends BotStats {
  conversations: number;
  /** How long serving them took (the reply budget of 25 calls a second sets the pace). */
  seconds: number;
}

/**
 * How long the bot idles before its memory is read: V8 gives the heap it grew under load
 * back only once the process has been quiet for a while (its memory reducer; ~30 s here).
 */
const IDLE_MS = 40_000;

/**
 * `conversations` private chats each get one turn, a wave of 20 at a time (within the
 * 25-a-second budget); then, after 40 s idle, the bot's memory is read (and its peak).
 */
export async function measureIdleMemory(rig: Rig, conversations: number): Promise<IdleMemory> {
  const users = Array.from({ length: conversations }, (_, i) => FIRST_USER + i);
  const bot = await spawnBot('satchel', rig.env('satchel', rig.newHome(), users));
  try {
    rig.tg.clearCalls();
    rig.model.reset();
    const started = Date.now();
    for (let from = 0; from < users.length; from += 20) {
      const wave = users.slice(from, from + 20);
      for (const userId of wave) rig.tg.text({ userId, text: `hello from ${userId}` });
      await until(
        () => (rig.tg.calls('sendMessage').length >= from + wave.length ? true : undefined),
        `replies to ${from + wave.length} conversations`,
        60_000,
      );
    }
    const seconds = (Date.now() - started) / 1000;
    await sleep(IDLE_MS);
    return { conversations, seconds, ...(await bot.stats()) };
  } finally {
    await bot.stop();
  }
}

export interface Startup {
  /** Spawning the process → the first getUpdates reached Telegram (median of the runs). */
  toFirstPollMs: number;
  /** In the bot's process (ms since it started): modules loaded, app built, started. */
  importMs: number;
  createMs: number;
  startMs: number;
}

/** Starts satchel `runs` times on a home seeded with `rows` messages and ledger rows. */
export async function measureStartup(rig: Rig, rows: number, runs = 3): Promise<Startup> {
  const home = rig.newHome();
  if (rows > 0)
    seedHome(home, { conversations: Math.max(1, rows / 100), messages: rows, ledgerRows: rows });
  const samples: Startup[] = [];
  for (let run = 0; run < runs; run++) {
    const bot: BotChild = await spawnBot('satchel', rig.env('satchel', home, [FIRST_USER]));
    try {
      const poll = await until(
        () => rig.tg.calls('getUpdates').find((c) => c.receivedAt > bot.spawnedAt)?.receivedAt,
        'the first getUpdates',
      );
      samples.push({ toFirstPollMs: poll - bot.spawnedAt, ...bot.ready });
    } finally {
      await bot.stop();
    }
  }
  const median = (pick: (s: Startup) => number) => p50(samples.map(pick));
  return {
    toFirstPollMs: median((s) => s.toFirstPollMs),
    importMs: median((s) => s.importMs),
    createMs: median((s) => s.createMs),
    startMs: median((s) => s.startMs),
  };
}
