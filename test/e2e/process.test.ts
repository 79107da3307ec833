import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { FakeModel, userTexts } from '../fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { startArgs } from '../support/built.ts';
import { ChatClient, shownText } from '../support/chat-client.ts';
import { spawnNode } from '../support/child.ts';
import { refusingRoot, silentHost } from '../support/dead-hosts.ts';
import { ALLOWED_USER, fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts the bot as `npm start` does, from the run's build (test/support/built.ts), in `cwd`
 * with `env` only. `npm start` itself, through tsx, is test/e2e/npm-signals.test.ts.
 */
function runSatchel(env: Record<string, string>, cwd: string): Run {
  return spawnNode(
    startArgs(),
    { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdin: 'ignore' },
    (cleanup) => cleanups.push(cleanup),
  );
}

/** Fake Telegram and model servers, stopped after the test. */
async function fakes(): Promise<{ tg: FakeTelegram; model: FakeModel }> {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  cleanups.push(
    () => tg.stop(),
    () => model.stop(),
  );
  return { tg, model };
}

/**
 * Waits until the bot has nothing left to do: every update it stored is done and every
 * outbox row settled. A duplicate would come from work still waiting; once none waits, a
 * SIGTERM ends a run that can no longer send one (it drains before it exits).
 */
async function settled(home: string): Promise<void> {
  const dbFile = path.join(home, 'data', 'satchel.db');
  await vi.waitFor(
    () => {
      const db = new Database(dbFile, { readonly: true });
      try {
        const waiting = db
          .prepare(
            `SELECT (SELECT count(*) FROM inbound_updates WHERE status = 'pending')
                  + (SELECT count(*) FROM outbox WHERE status = 'pending') AS n`,
          )
          .get() as { n: number };
        expect(waiting.n).toBe(0);
      } finally {
        db.close();
      }
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** The environment of a satchel on the fakes, with its data and packs under `home`. */
function satchelEnv(tg: FakeTelegram, model: FakeModel, home: string): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: TEST_TOKEN,
    TELEGRAM_API_ROOT: tg.apiRoot,
    ALLOWED_USER_IDS: String(ALLOWED_USER),
    SATCHEL_HOME: path.join(home, 'data'),
    SATCHEL_PACKS: path.join(home, 'packs'),
    OPENAI_API_KEY: TEST_OPENAI_KEY,
    OPENAI_BASE_URL: `${model.url}/v1`,
    BATCH_WINDOW_MS: '0',
  };
}

/** Waits until the child has logged `event`, and returns that line. */
async function logged(run: Run, event: string, timeout = 15_000): Promise<Record<string, unknown>> {
  let line: Record<string, unknown> | undefined;
  await vi.waitFor(
    () => {
      line = run
        .stdout()
        .split('\n')
        .filter((l) => l.includes(`"event":"${event}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
      expect(line, `${event} in the log`).toBeDefined();
    },
    { timeout, interval: 50 },
  );
  return line!;
}

function tempHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-proc-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

describe('the real entry point', () => {
  it('answers exactly once after SIGKILL mid-answer, and the message queued behind it too', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const env = { ...satchelEnv(tg, model, home), SATCHEL_TIMEZONE: 'UTC', LOG_LEVEL: 'info' };

    model.enqueue({ text: 'never finished', hang: true });
    const first = runSatchel(env, home);
    tg.text({ userId: ALLOWED_USER, text: 'what is the capital of Peru?' });
    await model.waitForRequest(1, 15_000);
    // A second message waits behind the running turn; it is stored, not yet answered.
    tg.text({ userId: ALLOWED_USER, text: 'and of Chile?' });
    const dbFile = path.join(home, 'data', 'satchel.db');
    await vi.waitFor(
      () => {
        const db = new Database(dbFile, { readonly: true });
        const stored = db.prepare('SELECT 1 FROM inbound_updates').all();
        db.close();
        expect(stored).toHaveLength(2);
      },
      { timeout: 10_000, interval: 50 },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    expect(tg.texts(ALLOWED_USER)).toEqual([]);

    // After the restart both stored updates are replayed as one batch; the first message
    // was already stored by the killed run and is not stored twice.
    model.enqueue({ text: 'Lima, and Santiago.' });
    const second = runSatchel({ ...env, BATCH_WINDOW_MS: '300' }, home);
    await tg.waitForCall('sendMessage', undefined, 15_000);
    // Nothing left that could send a duplicate; then stop gracefully.
    await settled(home);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    expect(tg.texts(ALLOWED_USER)).toEqual(['Lima, and Santiago.']);
    expect(model.chatRequests()).toHaveLength(2);
    expect(userTexts(model.chatRequests()[1]!)).toEqual([
      'what is the capital of Peru?',
      'and of Chile?',
    ]);
    const db = new Database(dbFile, { readonly: true });
    cleanups.push(() => {
      db.close();
    });
    const messages = db.prepare('SELECT role, content FROM messages ORDER BY id').all();
    expect(messages).toEqual([
      { role: 'user', content: 'what is the capital of Peru?' },
      { role: 'user', content: 'and of Chile?' },
      { role: 'assistant', content: 'Lima, and Santiago.' },
    ]);
    expect(db.prepare('SELECT status FROM inbound_updates').all()).toEqual([
      { status: 'done' },
      { status: 'done' },
    ]);
    expect(second.stdout()).toContain('"event":"tg_inbox_replay"');
  });

  it('shows a group answer once after SIGKILL mid-stream: the replay edits the partial message', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const env = { ...satchelEnv(tg, model, home), SATCHEL_TIMEZONE: 'UTC', LOG_LEVEL: 'info' };
    const group = -100321;

    // The answer streams into the group, word by word, and never ends.
    model.enqueue({ text: 'Peru: ', trickle: true, chunkDelayMs: 100 });
    const first = runSatchel(env, home);
    tg.text({
      userId: ALLOWED_USER,
      chatId: group,
      chatType: 'supergroup',
      text: '@satchel_test_bot capitals?',
    });
    const partial = await tg.waitForCall('sendMessage', (c) => c.params.chat_id === group, 15_000);
    const dbFile = path.join(home, 'data', 'satchel.db');
    await vi.waitFor(
      () => {
        const db = new Database(dbFile, { readonly: true });
        const rows = db.prepare('SELECT message_id FROM outbox').all();
        db.close();
        expect(rows).toEqual([{ message_id: String(partial.result.message_id) }]);
      },
      { timeout: 10_000, interval: 50 },
    );
    first.child.kill('SIGKILL');
    await first.exited;

    model.enqueue({ text: 'Lima, and Santiago.' });
    const second = runSatchel(env, home);
    await tg.waitForCall('editMessageText', (c) => c.params.text === 'Lima, and Santiago.', 15_000);
    // Nothing left that could send a duplicate; then stop gracefully.
    await settled(home);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // One message in the group, the partial one, now holding the whole answer.
    expect(tg.sent(group).filter((c) => c.method === 'sendMessage')).toHaveLength(1);
    const edits = tg.calls('editMessageText').filter((c) => c.params.chat_id === group);
    expect(edits.at(-1)?.params).toMatchObject({
      message_id: partial.result.message_id,
      text: 'Lima, and Santiago.',
    });
  }, 40_000);

  it('delivers a job exactly once after SIGKILL during its run', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const env = {
      ...satchelEnv(tg, model, home),
      SATCHEL_PACKS: fixturePacks(['alpha']),
      SATCHEL_TIMEZONE: 'UTC',
    };
    const first = runSatchel(env, home);
    // Due 3 s after the bot is up: a slow start must not put the reminder in the past.
    await tg.waitForCall('getUpdates', undefined, 15_000);
    const due = new Date(Date.now() + 3000).toISOString();
    model.enqueue(
      {
        toolCalls: [
          {
            name: 'schedule',
            arguments: { action: 'create', schedule: due, prompt: 'Remind the user.' },
          },
        ],
      },
      { text: 'Scheduled.' },
      { text: 'never delivered', hang: true },
    );
    tg.text({ userId: ALLOWED_USER, text: 'remind me in a moment' });
    await model.waitForRequest(3, 15_000);
    first.child.kill('SIGKILL');
    await first.exited;
    // The answer ends with the receipt of the job it set (SPEC §18), due in a few seconds.
    const scheduled = expect.stringMatching(
      /^Scheduled\.\n\n✓ reminder set for (today|tomorrow) \d\d:\d\d$/,
    );
    expect(tg.texts(ALLOWED_USER)).toEqual([scheduled]);

    model.enqueue({ text: 'Here is your reminder.' });
    const second = runSatchel(env, home);
    await tg.waitForCall('sendMessage', (c) => c.params.text === 'Here is your reminder.', 15_000);
    await settled(home);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    expect(tg.texts(ALLOWED_USER)).toEqual([scheduled, 'Here is your reminder.']);
    expect(second.stdout()).toContain('"event":"job_resumed"');
  });

  it('answers a voice note exactly once after SIGKILL during its transcription', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const env = {
      ...satchelEnv(tg, model, home),
      GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
      GROQ_BASE_URL: model.url,
    };
    tg.addFile('v1', Buffer.from('OggS voice'), 'voice/file_1.oga');
    model.enqueueTranscription({ text: 'never heard', delayMs: 60_000 });
    const first = runSatchel(env, home);
    tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await model.waitForTranscription(1, 15_000);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(tg.texts(ALLOWED_USER)).toEqual([]);

    model.enqueueTranscription({ text: 'water the basil', duration: 2 });
    const second = runSatchel(env, home);
    await tg.waitForCall('sendMessage', undefined, 15_000);
    await settled(home);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    expect(model.requests({ kind: 'transcription' })).toHaveLength(2);
    expect(model.chatRequests()).toHaveLength(1);
    expect(tg.texts(ALLOWED_USER)).toHaveLength(1);
    expect(tg.texts(ALLOWED_USER)[0]).toContain('water the basil');
  });

  it('on SIGTERM lets the running turn finish, delivers it, and exits cleanly', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    // The answer waits until the drain has begun (an event, not a fixed delay).
    let release = () => {};
    const drained = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: 'worth the wait', until: drained });
    const run = runSatchel(satchelEnv(tg, model, home), home);
    tg.text({ userId: ALLOWED_USER, text: 'one more thing' });
    await model.waitForRequest(1, 15_000);
    run.child.kill('SIGTERM');
    await logged(run, 'satchel_stopping');
    release();
    expect(await run.exited).toBe(0);
    expect(tg.texts(ALLOWED_USER)).toEqual(['worth the wait']);
    expect(run.stdout()).toContain('"event":"satchel_stopped"');
  });

  it('exits non-zero when Telegram stops polling for good (another instance polls)', async () => {
    const { tg, model } = await fakes();
    tg.fail('getUpdates', {
      status: 409,
      description: 'Conflict: terminated by other getUpdates request',
    });
    const home = tempHome();
    const run = runSatchel(satchelEnv(tg, model, home), home);
    expect(await run.exited).toBe(1);
    expect(run.stdout()).toContain('"event":"tg_polling_stopped"');
    expect(run.stdout()).toContain('"event":"satchel_stopped"');
  });

  it('stops at once on SIGINT while Telegram refuses connections at start, and says why', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const root = await refusingRoot();
    const run = runSatchel({ ...satchelEnv(tg, model, home), TELEGRAM_API_ROOT: root }, home);

    const unreachable = await logged(run, 'tg_unreachable');
    expect(unreachable.cause).toContain('ECONNREFUSED');
    expect(unreachable.retryInMs).toBeGreaterThan(0);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('"event":"satchel_stopped"');
    expect(run.stdout()).not.toContain(TEST_TOKEN);
    expect(run.stdout()).not.toContain('"event":"tg_connected"');
  });

  it('stops on SIGTERM while Telegram accepts the connection at start and never answers', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const host = await silentHost();
    cleanups.push(() => host.close());
    const run = runSatchel({ ...satchelEnv(tg, model, home), TELEGRAM_API_ROOT: host.root }, home);

    await host.connected;
    await logged(run, 'satchel_started');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('"event":"satchel_stopped"');
  });

  it('survives a doubled Ctrl-C (as under npm start): the turn finishes, is delivered, exit 0', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    // The answer waits until the second signal was heard (an event, not a fixed delay).
    let release = () => {};
    const ignored = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: 'worth the wait', until: ignored });
    const run = runSatchel(satchelEnv(tg, model, home), home);
    tg.text({ userId: ALLOWED_USER, text: 'one more thing' });
    await model.waitForRequest(1, 15_000);

    // npm passes the terminal's SIGINT on to its child, which the terminal signalled too: the
    // second comes once the drain has begun (sent at once, the OS would merge the two).
    run.child.kill('SIGINT');
    await logged(run, 'satchel_stopping');
    run.child.kill('SIGINT');
    expect((await logged(run, 'shutdown_signal_ignored')).signal).toBe('SIGINT');
    release();
    expect(await run.exited).toBe(0);
    expect(tg.texts(ALLOWED_USER)).toEqual(['worth the wait']);
    expect(run.stdout()).toContain('"event":"satchel_stopped"');
    expect(run.stdout()).not.toContain('"event":"shutdown_forced"');
  });

  it('exits at once, non-zero, on a third signal while shutdown waits for a turn', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    model.enqueue({ text: 'never finished', hang: true });
    const run = runSatchel(satchelEnv(tg, model, home), home);
    expect((await logged(run, 'tg_connected')).username).toBe('satchel_test_bot');
    tg.text({ userId: ALLOWED_USER, text: 'a long question' });
    await model.waitForRequest(1, 15_000);

    run.child.kill('SIGTERM');
    await logged(run, 'satchel_stopping');
    run.child.kill('SIGINT');
    await logged(run, 'shutdown_signal_ignored');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stdout()).toContain('"event":"shutdown_forced"');
    expect(run.stdout()).not.toContain('"event":"satchel_stopped"');
  });

  it('refuses to start with a malformed TELEGRAM_BOT_TOKEN and names it', async () => {
    const home = tempHome();
    const run = runSatchel(
      { OPENAI_API_KEY: TEST_OPENAI_KEY, TELEGRAM_BOT_TOKEN: 'not-a-token' },
      home,
    );
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('TELEGRAM_BOT_TOKEN');
    expect(run.stderr()).not.toContain('not-a-token');
  });

  it('without TELEGRAM_BOT_TOKEN runs the web chat alone: prints its address, answers, calls no Bot API', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const { TELEGRAM_BOT_TOKEN: _, ...env } = satchelEnv(tg, model, home);
    // A mistyped name in .env is one warning at start, with its line and the right name.
    writeFileSync(path.join(home, '.env'), '# satchel\nOPENAI_APIKEY=sk-typo\n');
    const run = runSatchel({ ...env, DASHBOARD_PORT: '0' }, home);
    let address = '';
    await vi.waitFor(
      () => {
        address = /satchel web chat: (\S+)/.exec(run.stderr())?.[1] ?? '';
        expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/chat\?token=[\w-]+$/);
      },
      { timeout: 15_000, interval: 50 },
    );
    const chat = await ChatClient.open(address);
    await chat.connect();
    cleanups.push(() => chat.close());
    await chat.send('hello from the browser');
    expect((await chat.waitForBot(1, 15_000)).map(shownText)).toEqual([
      'echo: hello from the browser',
    ]);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(tg.calls()).toEqual([]);
    expect(run.stdout()).toContain('"event":"telegram_off"');
    const warned = run
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"event":"env_file_problem"'))
      .map((l) => JSON.parse(l) as { level: number; line: number; msg: string });
    expect(warned).toEqual([
      expect.objectContaining({
        level: 40,
        line: 2,
        msg: '.env line 2: OPENAI_APIKEY is not a variable satchel reads (did you mean `OPENAI_API_KEY`?)',
      }),
    ]);
  });

  it('exits 1 naming the port when the web chat cannot listen and there is no bot: no way in is left', async () => {
    const { tg, model } = await fakes();
    const home = tempHome();
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    cleanups.push(() => new Promise<void>((done) => taken.close(() => done())));
    const port = (taken.address() as { port: number }).port;
    const { TELEGRAM_BOT_TOKEN: _, ...env } = satchelEnv(tg, model, home);
    const run = runSatchel({ ...env, DASHBOARD_PORT: String(port) }, home);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain(`satchel: the web chat cannot listen on port ${port}`);
    expect(run.stderr()).toContain('without TELEGRAM_BOT_TOKEN there is no other way in');
    expect(run.stdout()).toContain('"event":"web_chat_unavailable"');
    expect(run.stdout()).not.toContain('"event":"satchel_started"');
    expect(tg.calls()).toEqual([]);
  });

  it('refuses to start without the key, and names the .env line that holds it without =', async () => {
    const home = tempHome();
    writeFileSync(path.join(home, '.env'), `OPENAI_API_KEY ${TEST_OPENAI_KEY}\n`);
    const run = runSatchel({}, home);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('OPENAI_API_KEY');
    expect(run.stderr()).toContain('.env line 1: not NAME=value');
    expect(run.stderr()).toContain('write OPENAI_API_KEY=<value>');
    expect(run.stderr()).not.toContain(TEST_OPENAI_KEY);
  });
});
