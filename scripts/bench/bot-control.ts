/**
 * The parent side of bot-process.ts: starts a bot under test in its own Node process and
 * talks to it over IPC. Timestamps stay in the parent (the fakes' `preciseNow`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { preciseNow } from '../../test/fakes/telegram-server.ts';
import type { BotKind, BotStats, FromBot, ToBot } from './bot-process.ts';

export type { BotStats };

const ENTRY = fileURLToPath(new URL('./bot-process.ts', import.meta.url));

export interface BotChild {
  kind: BotKind;
  pid: number;
  /** When the process was spawned (`preciseNow`). */
  spawnedAt: number;
  /** In the child, ms since its process started: modules loaded, app built, `start` done. */
  ready: { importMs: number; createMs: number; startMs: number };
  /** The process's CPU time so far (user + system), in ms. */
  cpuMs(): Promise<number>;
  /** Memory now, and after a full garbage collection. */
  stats(): Promise<BotStats>;
  /** Stops the bot gracefully and waits for its process to exit. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Writes a V8 CPU profile (`--cpu-prof`) into this folder when the process exits. */
  cpuProfDir?: string;
  /** Another checkout's bot-process.ts: compares two versions of satchel side by side. */
  entry?: string;
  /** More Node flags for the bot's process (say, `--max-semi-space-size=…`). */
  nodeFlags?: string[];
}

export async function spawnBot(
  kind: BotKind,
  env: Record<string, string>,
  options: SpawnOptions = {},
): Promise<BotChild> {
  const spawnedAt = preciseNow();
  const child = fork(options.entry ?? ENTRY, [kind], {
    env: {
      PATH: process.env.PATH ?? '',
      ...(process.env.BENCH_LOGS ? { BENCH_LOGS: process.env.BENCH_LOGS } : {}),
      ...env,
    },
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(options.nodeFlags ?? []),
      ...(options.cpuProfDir
        ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`, '--cpu-prof-interval=250']
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await next(child, 'ready', 60_000);
  const { importMs, createMs, startMs } = ready;
  return {
    kind,
    pid: child.pid ?? 0,
    spawnedAt,
    ready: { importMs, createMs, startMs },
    async cpuMs() {
      const reply = next(child, 'cpu', 10_000);
      child.send({ type: 'cpu' } satisfies ToBot);
      return (await reply).ms;
    },
    async stats() {
      const reply = next(child, 'stats', 10_000);
      child.send({ type: 'stats' } satisfies ToBot);
      const { type: _, ...stats } = await reply;
      return stats;
    },
    async stop() {
      const stopped = next(child, 'stopped', 30_000);
      child.send({ type: 'stop' } satisfies ToBot);
      await stopped;
      await exited;
    },
  };
}

/** The child's next message of `type`; rejects when it fails, exits or takes too long. */
function next<T extends FromBot['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<FromBot, { type: T }>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: FromBot) => {
      if (message.type === 'failed') {
        done();
        reject(new Error(`bot process failed:\n${message.error}`));
      } else if (message.type === type) {
        done();
        resolve(message as Extract<FromBot, { type: T }>);
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`bot process exited (${code}) before '${type}'`));
    };
    const timer = setTimeout(() => {
      done();
      child.kill();
      reject(new Error(`bot process: no '${type}' within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
