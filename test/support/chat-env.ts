import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeModel } from '../fakes/model-server.ts';
import { fixturePacks, TEST_OPENAI_KEY } from './harness.ts';

/** What `satchel chat` runs on in a test: see `chatEnv`. */
export interface ChatEnv {
  model: FakeModel;
  /** A fresh temporary directory. */
  home: string;
  /** The chat's environment (no Telegram token): the fake model, `packs` installed. */
  env: Record<string, string>;
}

/**
 * The fake model, a fresh directory and the environment of `satchel chat` on them, with
 * SATCHEL_HOME at `data` inside the directory ('' for the directory itself). What undoes
 * them goes to `onCleanup` (the file's list, run after each test).
 */
export async function chatEnv(
  packs: string[],
  data: string,
  onCleanup: (...cleanups: (() => Promise<void> | void)[]) => void,
): Promise<ChatEnv> {
  const model = await FakeModel.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-chat-'));
  onCleanup(
    () => model.stop(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  const env = {
    SATCHEL_HOME: path.join(home, data),
    SATCHEL_PACKS: fixturePacks(packs),
    OPENAI_API_KEY: TEST_OPENAI_KEY,
    OPENAI_BASE_URL: `${model.url}/v1`,
    LLM_MODEL: 'gpt-4.1-mini',
    BATCH_WINDOW_MS: '0',
    SATCHEL_TIMEZONE: 'UTC',
  };
  return { model, home, env };
}
