/**
 * No MCP server outlives satchel (SPEC §13): the real entry point, a pack whose stdio server
 * starts on its first turn, then satchel stopped by SIGTERM or killed by SIGKILL. The server
 * here ignores both stdin closing and SIGTERM, the worst a server can do.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeModel } from '../fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { startArgs } from '../support/built.ts';
import { spawnNode } from '../support/child.ts';
import { ALLOWED_USER, fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';
import { fixtureEntry } from '../support/mcp-packs.ts';

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

/** satchel on the fakes with one pack whose MCP server runs with `serverEnv` (pack.yml). */
async function launch(serverEnv: (home: string) => Record<string, string>) {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-proc-'));
  cleanups.push(
    () => tg.stop(),
    () => model.stop(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  const packs = fixturePacks(
    ['beta'],
    `mcp:\n${fixtureEntry('fx', [`env: ${JSON.stringify(serverEnv(home))}`])}\n`,
  );
  const run = spawnNode(
    startArgs(),
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
  return { tg, model, home, run };
}

/** One turn in which the model calls `tool` of the server, then answers `reply`. */
async function turnCalling(
  { tg, model }: { tg: FakeTelegram; model: FakeModel },
  tool: string,
  reply: string,
) {
  model.enqueue({ toolCalls: [{ name: `fx__${tool}`, arguments: {} }] }, { text: reply });
  tg.text({ userId: ALLOWED_USER, text: `call ${tool}` });
  await vi.waitFor(() => expect(tg.texts(ALLOWED_USER)).toContain(reply), {
    timeout: 20_000,
    interval: 50,
  });
}

/** The pids logged one per line in `file` (each removed after the test if still running). */
function pidsIn(file: string): number[] {
  const pids = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map(Number) : [];
  cleanups.push(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return pids;
}

/** satchel on the fakes with one pack whose MCP server logs its pid; its first turn ran. */
async function satchelWithServer() {
  const setup = await launch((home) => ({
    MCP_FIXTURE_MODE: 'ignore-eof',
    MCP_FIXTURE_START_LOG: path.join(home, 'server-pids'),
  }));
  const { model, home, run } = setup;
  await turnCalling(setup, 'pid', 'server up');
  const started = pidsIn(path.join(home, 'server-pids'));
  expect(started).toHaveLength(1);
  const pid = started[0]!;
  // The model read the pid the server reported: the same process the log names.
  expect(JSON.stringify(model.chatRequests()[1]!.body.messages)).toContain(String(pid));
  expect(alive(pid)).toBe(true);
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

  it('a server that crashed and one stopped by SIGTERM leave none of the processes they started', async () => {
    const setup = await launch((home) => ({
      MCP_FIXTURE_MODE: 'fork',
      MCP_FIXTURE_CHILD_LOG: path.join(home, 'children'),
    }));
    const children = path.join(setup.home, 'children');
    // The first server crashes in a call; the next turn starts a second one, which runs on.
    await turnCalling(setup, 'crash', 'it crashed');
    await turnCalling(setup, 'pid', 'it is back');
    const grandchildren = pidsIn(children);
    expect(grandchildren).toHaveLength(2);
    expect(alive(grandchildren[1]!)).toBe(true);

    setup.run.child.kill('SIGTERM');

    expect(await setup.run.exited).toBe(0);
    // (Killed, they are reaped by init a moment later: until then the pid still answers.)
    await vi.waitFor(() => expect(grandchildren.filter(alive)).toEqual([]), {
      timeout: 15_000,
      interval: 100,
    });
  }, 60_000);
});
