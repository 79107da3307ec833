/**
 * The fakes both bots run against, and the environment that points each bot at them.
 * satchel runs the bundled journal pack (its prompt, tools and cron jobs) on a fresh
 * SATCHEL_HOME per run, with BATCH_WINDOW_MS=0 so that no batching window is measured.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeModel } from '../../test/fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../../test/fakes/telegram-server.ts';
import type { BotKind } from './bot-process.ts';

export const MODEL = 'gpt-4.1-mini';
const PACKS = fileURLToPath(new URL('../../packs', import.meta.url));

export interface Rig {
  tg: FakeTelegram;
  model: FakeModel;
  /** A packs folder holding a copy of the bundled journal pack. */
  packsDir: string;
  /** A fresh SATCHEL_HOME, removed by `close`. */
  newHome(): string;
  /** The environment of a bot of `kind`; `allowed` are the Telegram user ids satchel lets in. */
  env(kind: BotKind, home: string, allowed: readonly number[]): Record<string, string>;
  close(): Promise<void>;
}

export async function openRig(): Promise<Rig> {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  const root = mkdtempSync(path.join(tmpdir(), 'satchel-bench-pipeline-'));
  const packsDir = path.join(root, 'packs');
  cpSync(path.join(PACKS, 'journal'), path.join(packsDir, 'journal'), { recursive: true });
  let homes = 0;
  return {
    tg,
    model,
    packsDir,
    newHome: () => path.join(root, `home-${++homes}`),
    env(kind, home, allowed) {
      const common = {
        TELEGRAM_BOT_TOKEN: TEST_TOKEN,
        TELEGRAM_API_ROOT: tg.apiRoot,
        OPENAI_BASE_URL: `${model.url}/v1`,
        LLM_MODEL: MODEL,
      };
      if (kind === 'bare') return common;
      return {
        ...common,
        OPENAI_API_KEY: 'sk-bench',
        ALLOWED_USER_IDS: allowed.join(','),
        SATCHEL_HOME: home,
        SATCHEL_PACKS: packsDir,
        BATCH_WINDOW_MS: '0',
        SATCHEL_TIMEZONE: 'UTC',
        LOG_LEVEL: 'info',
        // The dashboard runs (it is part of the bot) on a free port, out of everyone's way.
        DASHBOARD_PORT: '0',
      };
    },
    async close() {
      await tg.stop();
      await model.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
