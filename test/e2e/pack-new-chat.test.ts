import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { satchel as runSatchel } from '../../src/cli/commands.ts';
import { Database } from '../../src/store/sqlite.ts';
import { FakeModel, systemText, userTexts } from '../fakes/model-server.ts';
import { cliArgs } from '../support/built.ts';
import { spawnNode } from '../support/child.ts';
import { recordingIo } from '../support/cli-io.ts';
import { TEST_OPENAI_KEY } from '../support/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A project folder with `./packs` and `./data`, and the environment of a satchel in it. */
async function project() {
  const model = await FakeModel.start();
  const cwd = mkdtempSync(path.join(tmpdir(), 'satchel-pack-new-'));
  cleanups.push(
    () => model.stop(),
    () => rmSync(cwd, { recursive: true, force: true }),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    SATCHEL_HOME: './data',
    SATCHEL_PACKS: './packs',
    OPENAI_API_KEY: TEST_OPENAI_KEY,
    OPENAI_BASE_URL: `${model.url}/v1`,
    LLM_MODEL: 'gpt-4.1-mini',
    BATCH_WINDOW_MS: '0',
    SATCHEL_TIMEZONE: 'UTC',
  };
  /** `satchel ARGS` in process, through the CLI's entry, in the project folder. */
  const satchel = async (...args: string[]) => {
    const io = recordingIo(env, cwd);
    const status = await runSatchel(args, io);
    return { status, stdout: io.out(), stderr: io.err() };
  };
  return { model, cwd, env, satchel };
}

/**
 * `satchel chat` on pipes, in a process of its own as an author runs it (the configuration's
 * relative folders are the process's): the lines are typed, then the input ends.
 */
function chat(cwd: string, env: Record<string, string>, args: string[], lines: string[]) {
  const { child, stdout, stderr, exited } = spawnNode(
    [...cliArgs(), 'chat', ...args],
    { cwd, env, stdin: 'pipe' },
    (cleanup) => cleanups.push(cleanup),
  );
  for (const line of lines) child.stdin?.write(`${line}\n`);
  child.stdin?.end();
  return exited.then((code) => ({ code, out: stdout(), err: stderr() }));
}

describe('satchel pack new → validate → chat', () => {
  it('creates a pack that validates, is listed, and answers in satchel chat through its skill', async () => {
    const { model, cwd, env, satchel } = await project();

    const created = await satchel('pack', 'new', 'demo');
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(
      'Created pack "demo" in demo (a running satchel does not load it)\n',
    );
    expect(created.stdout).toContain('  npx satchel pack add ./demo --yes');
    expect(created.stdout).toContain('  npx satchel chat --pack demo\n');
    // Written where the author works, not into the folders a running bot loads.
    expect(existsSync(path.join(cwd, 'demo', 'pack.yml'))).toBe(true);
    expect(existsSync(path.join(cwd, 'packs'))).toBe(false);
    expect((await satchel('pack', 'list')).stdout).not.toContain('demo');

    const validated = await satchel('pack', 'validate', 'demo');
    expect(validated.stderr).toBe('');
    expect(validated.status).toBe(0);
    expect(validated.stdout).toContain('ok: demo 0.1.0 (Demo)\n  skills: /notes\n');

    const tested = await satchel('pack', 'test', 'demo');
    expect(tested.stderr).toBe('');
    expect(tested.stdout).toBe(
      'demo\n✓ notes.yml: saves a note and lists it\n\n1 passed, 0 failed\n',
    );
    expect(tested.status).toBe(0);

    const added = await satchel('pack', 'add', './demo', '--yes');
    expect(added.status, added.stderr).toBe(0);
    const listed = await satchel('pack', 'list');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('  demo  0.1.0  Demo\n    skills: /notes\n');

    model.enqueue(
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: { action: 'insert', table: 'notes', values: { body: 'buy milk' } },
          },
        ],
      },
      { text: 'Saved: buy milk.' },
    );
    const run = await chat(cwd, env, ['--pack', 'demo'], ['/notes remember to buy milk']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain('Saved: buy milk.');

    // The /notes command pinned the skill's instructions into the turn.
    const [first] = model.chatRequests();
    const [said] = userTexts(first!);
    expect(said).toMatch(/^# Skill for this turn: notes\n/);
    expect(said).toMatch(/\n# The user's message\nremember to buy milk$/);
    expect(systemText(first!)).toContain('You are a concise, friendly assistant');
    const db = new Database(path.join(cwd, 'data', 'packs', 'demo', 'pack.db'), {
      readonly: true,
    });
    try {
      expect(db.prepare('SELECT body FROM notes').all()).toEqual([{ body: 'buy milk' }]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('refuses a bad name with exit 2 and an existing pack with exit 1', async () => {
    const { satchel } = await project();
    const bad = await satchel('pack', 'new', 'My Pack');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('satchel pack new: the pack name "My Pack" must match');
    expect((await satchel('pack', 'new', 'demo')).status).toBe(0);
    const again = await satchel('pack', 'new', 'demo');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('already exists');
  });
});
