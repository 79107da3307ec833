/**
 * No MCP server outlives satchel (SPEC §13): the real entry point, a pack whose stdio server
 * starts on its first turn, then satchel stopped by SIGTERM or killed by SIGKILL. The server
 * here ignores both stdin closing and SIGTERM, the worst a server can do.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeModel } from '../fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { spawnNode } from '../support/child.ts';
import { ALLOWED_USER, fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';
import { fixtureEntry } from '../support/mcp-packs.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** satchel on the fakes with one pack whose MCP server logs its pid; its first turn ran. */
async function satchelWithServer() {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-proc-'));
  const pids = path.join(home, 'server-pids');
  cleanups.push(
    () => tg.stop(),
    () => model.stop(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  const packs = fixturePacks(
    ['beta'],
    `mcp:\n${fixtureEntry('fx', [
      `env: {MCP_FIXTURE_MODE: ignore-eof, MCP_FIXTURE_START_LOG: ${JSON.stringify(pids)}}`,
    ])}\n`,
  );
  const run = spawnNode(
    ['--import', TSX, MAIN],
    {
      cwd: home,
      stdin: 'ignore',
      env: {
        PATH: process.env.PATH ?? '',
        TELEGRAM_BOT_TOKEN: TEST_TOKEN,
        TELEGRAM_API_ROOT: tg.apiRoot,
        ALLOWED_USER_IDS: String(ALLOWED_USER),
        SATCHEL_HOME: path.join(home, 'data'),
        SATCHEL_PACKS: packs,
        OPENAI_API_KEY: TEST_OPENAI_KEY,
        OPENAI_BASE_URL: `${model.url}/v1`,
        BATCH_WINDOW_MS: '0',
        LOG_LEVEL: 'info',
      },
    },
    (cleanup) => cleanups.push(cleanup),
  );
  model.enqueue({ toolCalls: [{ name: 'fx__pid', arguments: {} }] }, { text: 'server up' });
  tg.text({ userId: ALLOWED_USER, text: 'start your server' });
  await vi.waitFor(() => expect(tg.texts(ALLOWED_USER)).toContain('server up'), {
    timeout: 20_000,
    interval: 50,
  });
  expect(existsSync(pids)).toBe(true);
  const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
  expect(started).toHaveLength(1);
  const pid = started[0]!;
  // The model read the pid the server reported: the same process the log names.
  expect(JSON.stringify(model.chatRequests()[1]!.body.messages)).toContain(String(pid));
  expect(alive(pid)).toBe(true);
  cleanups.push(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { run, pid };
}

describe('MCP servers and the satchel process', () => {
  it('on SIGTERM satchel stops its server (killing one that ignores SIGTERM) and exits 0', async () => {
    const { run, pid } = await satchelWithServer();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(alive(pid)).toBe(false);
  });

  it('after SIGKILL of satchel its server is gone too', async () => {
    const { run, pid } = await satchelWithServer();
    run.child.kill('SIGKILL');
    await run.exited;
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 15_000, interval: 100 });
  });
});
