import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { satchel } from '../../src/cli/commands.ts';
import { Database } from '../../src/store/sqlite.ts';
import { userTexts } from '../fakes/model-server.ts';
import { cliArgs } from '../support/built.ts';
import { type ChatEnv, chatEnv } from '../support/chat-env.ts';
import { spawnNode } from '../support/child.ts';
import { recordingIo } from '../support/cli-io.ts';
import { startHarness } from '../support/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Chat {
  stdout: () => string;
  stderr: () => string;
  /** Types a line. */
  type(line: string): void;
  /** Ctrl-D: the end of the input. */
  end(): void;
  /** Waits until stdout shows `text`. */
  shows(text: string, timeout?: number): Promise<void>;
  exited: Promise<number | null>;
}

const showing =
  (stdout: () => string) =>
  (text: string, timeout = 15_000): Promise<void> =>
    vi.waitFor(() => expect(stdout()).toContain(text), { timeout, interval: 25 });

/**
 * `satchel chat` as a child process on pipes, with only `env` (no Telegram token): for what
 * needs a process of its own (a signal).
 */
function spawnChat(
  env: Record<string, string>,
  home: string,
  ...args: string[]
): Chat & { child: ChildProcess } {
  const { child, stdout, stderr, exited } = spawnNode(
    [...cliArgs(), 'chat', ...args],
    { cwd: home, env: { PATH: process.env.PATH ?? '', ...env }, stdin: 'pipe' },
    (cleanup) => cleanups.push(cleanup),
  );
  return {
    child,
    stdout,
    stderr,
    type: (line) => child.stdin?.write(`${line}\n`),
    end: () => child.stdin?.end(),
    shows: showing(stdout),
    exited,
  };
}

/** `satchel chat` in process, through the CLI's entry, its input a pipe the test types into. */
function runChat(env: Record<string, string>, home: string, ...args: string[]): Chat {
  const io = recordingIo(env, home);
  const stdin = io.stdin as PassThrough;
  return {
    stdout: io.out,
    stderr: io.err,
    type: (line) => stdin.write(`${line}\n`),
    end: () => stdin.end(),
    shows: showing(io.out),
    exited: satchel(['chat', ...args], io),
  };
}

type Setup = ChatEnv;

/** The fake model, a fresh directory and the chat's environment, with `packs` installed. */
const setup = (packs: string[]): Promise<Setup> =>
  chatEnv(packs, 'data', (...undo) => cleanups.push(...undo));

/** Reads a SQLite file of the chat (core or pack database), read-only. */
function query<T = Record<string, unknown>>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const coreDb = (s: Setup) => path.join(s.env.SATCHEL_HOME!, 'satchel.db');

describe('satchel chat', () => {
  it('streams the answer while the model writes, stops it on Ctrl-C, and exits 0 at the end of input', async () => {
    const s = await setup(['alpha']);
    s.model.enqueue({ text: 'Tomatoes want deep watering ', trickle: true, chunkDelayMs: 50 });
    const chat = spawnChat(s.env, s.home, '--pack', 'alpha');
    await chat.shows('satchel chat · Alpha Garden (alpha)');

    chat.type('how do I water tomatoes?');
    // On stdout while the model is still writing: it has not finished its answer.
    await chat.shows('Tomatoes want deep watering w1');
    expect(s.model.chatRequests()).toHaveLength(1);
    expect(userTexts(s.model.chatRequests()[0]!)).toEqual(['how do I water tomatoes?']);
    expect(s.model.chatRequests()[0]!.aborted).toBe(false);

    chat.child.kill('SIGINT');
    await chat.shows('Stopped.');
    await vi.waitFor(() => expect(s.model.chatRequests()[0]!.aborted).toBe(true));
    chat.end();
    expect(await chat.exited).toBe(0);
    expect(chat.stderr()).toBe('');
    const out = chat.stdout();
    expect(out.indexOf('Stopped.')).toBeGreaterThan(out.indexOf('Tomatoes want deep watering w1'));
  });

  it('answers the lines typed before the end of input, books the calls, then exits 0', async () => {
    const s = await setup(['alpha']);
    s.model.enqueue({
      text: 'Basil likes **sun** and warm soil.',
      chunks: 5,
      chunkDelayMs: 100,
      usage: { input: 120, output: 30 },
    });
    const chat = runChat(s.env, s.home, '--pack', 'alpha');
    chat.type('where should basil go?');
    chat.end();

    expect(await chat.exited).toBe(0);
    expect(chat.stdout()).toContain('Basil likes sun and warm soil.\n');
    const ledger = query(
      coreDb(s),
      'SELECT kind, provider, model, pack, chat_id, input_tokens, output_tokens, ok FROM usage_events',
    );
    expect(ledger).toEqual([
      {
        kind: 'llm',
        provider: 'openai',
        model: 'gpt-4.1-mini',
        pack: 'alpha',
        chat_id: 'local',
        input_tokens: 120,
        output_tokens: 30,
        ok: 1,
      },
    ]);
  });

  it('starts a fresh session on /new: the next request carries no earlier history', async () => {
    const s = await setup(['alpha']);
    const chat = runChat(s.env, s.home, '--pack', 'alpha');
    chat.type('my name is Ann');
    await chat.shows('echo: my name is Ann');
    chat.type('/new');
    await chat.shows('Started a fresh session.');
    chat.type('what is my name?');
    await chat.shows('echo: what is my name?');
    chat.end();
    expect(await chat.exited).toBe(0);

    const [first, second] = s.model.chatRequests();
    expect(userTexts(first!)).toEqual(['my name is Ann']);
    expect(userTexts(second!)).toEqual(['what is my name?']);
    expect(JSON.stringify(second!.body.messages)).not.toContain('Ann');
  });

  it('shows ask_user options numbered, and the typed number answers the question', async () => {
    const s = await setup(['alpha']);
    s.model.enqueue(
      {
        toolCalls: [
          {
            name: 'ask_user',
            arguments: {
              question: 'Which bed gets the basil?',
              options: ['North bed', 'South bed'],
            },
          },
        ],
      },
      { text: 'The south bed it is.' },
    );
    const chat = runChat(s.env, s.home, '--pack', 'alpha');
    chat.type('plant the basil');
    await chat.shows('Which bed gets the basil?\n  1. North bed\n  2. South bed\n');
    chat.type('2');
    await chat.shows('The south bed it is.');
    chat.end();
    expect(await chat.exited).toBe(0);

    const messages = s.model.chatRequests()[1]!.body.messages as {
      role: string;
      content: string;
    }[];
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'The user chose: South bed',
    ]);
  });

  it("writes a db_write call into the pack's own database", async () => {
    const s = await setup(['alpha']);
    s.model.enqueue(
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: {
              action: 'insert',
              table: 'plants',
              values: { name: 'basil', watered_on: '2026-05-01' },
            },
          },
        ],
        usage: { input: 200, output: 20 },
      },
      { text: 'Noted: basil.', usage: { input: 260, output: 5 } },
    );
    const chat = runChat(s.env, s.home, '--pack', 'alpha');
    chat.type('I planted basil today');
    await chat.shows('Noted: basil.');
    // The receipt ends the answer in the terminal too (SPEC §18).
    await chat.shows('✓ 1 row saved');
    chat.end();
    expect(await chat.exited).toBe(0);

    const packDb = path.join(s.env.SATCHEL_HOME!, 'packs', 'alpha', 'pack.db');
    expect(query(packDb, 'SELECT name, watered_on FROM plants')).toEqual([
      { name: 'basil', watered_on: '2026-05-01' },
    ]);
    const ledger = query<{ input_tokens: number; turn_id: string }>(
      coreDb(s),
      'SELECT input_tokens, turn_id FROM usage_events ORDER BY id',
    );
    expect(ledger.map((r) => r.input_tokens)).toEqual([200, 260]);
    expect(new Set(ledger.map((r) => r.turn_id)).size).toBe(1);
  });

  it('offers the packs as a numbered choice, and the typed number picks one', async () => {
    const s = await setup(['alpha', 'beta']);
    const chat = runChat(s.env, s.home);
    await chat.shows('no pack chosen yet');
    await chat.shows('  1. Alpha Garden\n  2. Beta Books\n');
    chat.type('2');
    await chat.shows('Now using Beta Books.');
    chat.type('hello');
    await chat.shows('echo: hello\n\n— Beta Books');
    chat.end();
    expect(await chat.exited).toBe(0);

    expect(
      query(coreDb(s), 'SELECT address, platform, active_pack FROM conversation_routes'),
    ).toEqual([{ address: 'local:local', platform: 'local', active_pack: 'beta' }]);
    // The next chat remembers the pack.
    const again = runChat(s.env, s.home);
    await again.shows('satchel chat · Beta Books (beta)');
    again.end();
    expect(await again.exited).toBe(0);
  });

  it('names an unknown --pack and the installed ones, and exits 1', async () => {
    const s = await setup(['alpha', 'beta']);
    const chat = runChat(s.env, s.home, '--pack', 'gamma');
    expect(await chat.exited).toBe(1);
    expect(chat.stderr()).toContain('there is no pack "gamma". Installed: alpha, beta.');
    expect(chat.stdout()).toBe('');
  });

  it('does not start with an invalid model catalog: it names the file, the line and the field', async () => {
    const s = await setup(['alpha']);
    const file = path.join(s.home, 'models.yaml');
    writeFileSync(file, 'openai:gpt-5-mini:\n  input: 0.25\n  ouput: 2\n');
    const chat = runChat({ ...s.env, SATCHEL_MODELS: file }, s.home);
    expect(await chat.exited).toBe(1);
    expect(chat.stderr()).toMatch(/^satchel chat: Invalid model catalog:\n/);
    expect(chat.stderr()).toContain(`- ${file} line 3: openai:gpt-5-mini.ouput is not a field`);
    expect(s.model.chatRequests()).toEqual([]);
  });

  it('runs beside the bot: the bot neither takes over nor removes the chat’s jobs', async () => {
    const s = await setup(['alpha']);
    const chat = runChat(s.env, s.home, '--pack', 'alpha');
    await chat.shows('satchel chat · Alpha Garden (alpha)');
    chat.end();
    expect(await chat.exited).toBe(0);
    const jobs = () => query(coreDb(s), 'SELECT pack, platform, chat_id FROM jobs');
    expect(jobs()).toEqual([{ pack: 'alpha', platform: 'local', chat_id: 'local' }]);

    // The Telegram bot on the same SATCHEL_HOME syncs its manifest jobs: only its own chats.
    const bot = await startHarness({
      SATCHEL_HOME: s.env.SATCHEL_HOME!,
      SATCHEL_PACKS: s.env.SATCHEL_PACKS!,
    });
    cleanups.push(() => bot.close());
    expect(bot.logs('jobs_synced')).toEqual([]);
    expect(jobs()).toEqual([{ pack: 'alpha', platform: 'local', chat_id: 'local' }]);
  });
});
