import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import type { CliCommand } from '../../src/cli/command.ts';
import { setupCommand } from '../../src/cli/setup.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram-server.ts';
import { recordingIo } from './cli-io.ts';
import { TEST_OPENAI_KEY } from './harness.ts';
import { type LoopbackGuard, loopbackOnly } from './loopback-only.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What one run of setup printed, and its exit code. */
export interface SetupRun {
  code: number;
  out: string;
  err: string;
}

/** A terminal on injected streams: `answer` types once the question is shown. */
export interface SetupTerminal {
  io: ReturnType<typeof recordingIo> & { stdin: PassThrough & { isTTY: true } };
  /** Waits until `question` has been printed after the last answer, then types `answer`. */
  answer(question: string, answer: string): Promise<void>;
}

/** The fakes and the folder `satchel setup` runs in, fresh for each test: see `setupPerTest`. */
export interface SetupRig {
  readonly tg: FakeTelegram;
  /** The model server; its OpenAI routes take TEST_OPENAI_KEY only. */
  readonly model: FakeModel;
  /** The folder setup runs in: `.env` is written here, SATCHEL_HOME is `data` inside it. */
  readonly dir: string;
  /** The environment setup sees (a test may change it before a run). */
  readonly env: Record<string, string>;
  /** Runs `undo` after the test, before the fakes stop. */
  onCleanup(undo: () => Promise<void>): void;
  envFile(): string;
  home(): string;
  /** Runs `command` (setup) with `args` on recording streams. */
  setup(args: string[], command?: CliCommand): Promise<SetupRun>;
  /** `--yes` on the fake's OpenAI routes with `key`, then `extra`. */
  withKey(key: string, ...extra: string[]): string[];
  /** `withKey` with the key the fake takes. */
  flags(...extra: string[]): string[];
  terminal(): SetupTerminal;
}

/**
 * The preamble of a file that runs `satchel setup` in process, called at its top: before each
 * test the fake Telegram and model servers and a fresh folder, and the environment `npm
 * start` would add (the fakes, a home of its own, the bundled packs: each with a daily_usd
 * cap, so the model needs a price), with `moreEnv`'s variables; after it, all of them gone.
 * No host but loopback may be looked up meanwhile: a test that tried fails.
 */
export function setupPerTest(
  moreEnv: (fakes: { model: FakeModel }) => Record<string, string> = () => ({}),
): SetupRig {
  let state:
    | { tg: FakeTelegram; model: FakeModel; dir: string; env: Record<string, string> }
    | undefined;
  let offline: LoopbackGuard | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    const tg = await FakeTelegram.start();
    const model = await FakeModel.start();
    model.requireKey('openai', TEST_OPENAI_KEY);
    const dir = mkdtempSync(path.join(tmpdir(), 'satchel-setup-'));
    const env = {
      TELEGRAM_API_ROOT: tg.apiRoot,
      SATCHEL_HOME: path.join(dir, 'data'),
      SATCHEL_PACKS: path.join(ROOT, 'packs'),
      DASHBOARD_PORT: '0',
      ...moreEnv({ model }),
    };
    state = { tg, model, dir, env };
    // Last, so that no failure above leaves the lookup guarded for the next file.
    offline = loopbackOnly();
  });

  afterEach(async () => {
    offline?.restore();
    const refused = offline?.refused() ?? [];
    offline = undefined;
    try {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    } finally {
      if (state) {
        await state.tg.stop();
        await state.model.stop();
        rmSync(state.dir, { recursive: true, force: true });
        state = undefined;
      }
    }
    // Setup and its checklist asked the fakes only.
    expect(refused).toEqual([]);
  });

  const now = () => {
    if (!state) throw new Error('setupPerTest: no test is running');
    return state;
  };
  const rig: SetupRig = {
    get tg() {
      return now().tg;
    },
    get model() {
      return now().model;
    },
    get dir() {
      return now().dir;
    },
    get env() {
      return now().env;
    },
    onCleanup: (undo) => void cleanups.push(undo),
    envFile: () => path.join(now().dir, '.env'),
    home: () => path.join(now().dir, 'data'),
    async setup(args, command = setupCommand) {
      const io = recordingIo(now().env, now().dir);
      const code = await command.run(args, io);
      return { code, out: io.out(), err: io.err() };
    },
    withKey: (key, ...extra) => [
      '--yes',
      '--provider',
      'openai',
      '--api-key',
      key,
      '--base-url',
      `${now().model.url}/v1`,
      ...extra,
    ],
    flags: (...extra) => rig.withKey(TEST_OPENAI_KEY, ...extra),
    terminal: () => terminalOn(now().env, now().dir),
  };
  return rig;
}

function terminalOn(env: Record<string, string>, dir: string): SetupTerminal {
  const base = recordingIo(env, dir);
  const stdin = Object.assign(base.stdin as PassThrough, { isTTY: true as const });
  const io = { ...base, stdin };
  let asked = 0;
  return {
    io,
    async answer(question, answer) {
      await vi.waitFor(() => expect(io.out().slice(asked)).toContain(question), {
        timeout: 5000,
        interval: 10,
      });
      asked = io.out().length;
      stdin.write(`${answer}\n`);
    },
  };
}
