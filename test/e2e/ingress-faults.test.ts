import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bot } from 'grammy';
import { describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { createInboxRepo } from '../../src/store/inbox-repo.ts';
import { Database } from '../../src/store/sqlite.ts';
import { createIngress } from '../../src/telegram/ingress.ts';
import { TEST_TOKEN } from '../fakes/telegram-server.ts';
import { silentHost } from '../support/dead-hosts.ts';
import { ALLOWED_USER, harnessPerTest, type LogLine, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const WARN = 40;
const ERROR = 50;
const h = harnessPerTest();

/**
 * The app's clock in the tests of retries: Telegram's and the inbox's backoff (0.5 s doubling
 * to 2 s) is skipped instead of waited for, with `clock.skipWaits(BACKOFF_MS, …)`.
 */
let clock: JumpClock;
const BACKOFF_MS = 2000;

/** Waits for a debug `retry` line of `subject` with at least `attempt` failures behind it. */
async function retried(subject: string, attempt: number, timeout = 10_000): Promise<void> {
  await vi.waitFor(
    () =>
      expect(h.logs('retry').some((l) => l.of === subject && Number(l.attempt) >= attempt)).toBe(
        true,
      ),
    { timeout, interval: 25 },
  );
}

function one(event: string): LogLine {
  const lines = h.logs(event);
  expect(lines, event).toHaveLength(1);
  return lines[0]!;
}

describe('ingress when Telegram cannot be reached', () => {
  it('logs the outage once with its cause, then the recovery and who it connected as', async () => {
    clock = new JumpClock();
    await h.start(
      {},
      {
        app: { clock },
        beforeStart: (tg) => {
          tg.failAlways('getMe', { status: 'drop' });
          tg.failAlways('setMyCommands', { status: 'drop' });
        },
      },
    );
    await clock.skipWaits(BACKOFF_MS, () => retried('telegram', 3));
    h.tg.clearFaults();
    await clock.skipWaits(BACKOFF_MS, () =>
      vi.waitFor(() => expect(h.logs('tg_connected')).toHaveLength(1), { timeout: 10_000 }),
    );

    const down = one('tg_unreachable');
    expect(down.level).toBe(WARN);
    expect(down.cause).toMatch(/socket hang up|ECONNRESET/);
    expect(down.retryInMs).toBeGreaterThan(0);
    expect(one('tg_reachable').failedAttempts).toBeGreaterThanOrEqual(3);
    expect(one('tg_connected')).toMatchObject({
      username: 'satchel_test_bot',
      msg: 'connected as @satchel_test_bot',
    });
    expect(JSON.stringify(h.logs())).not.toContain(TEST_TOKEN);
    // The command menu goes up once Telegram answers, not only when it answered at start.
    await clock.skipWaits(BACKOFF_MS, () => h.tg.waitForCall('setMyCommands', (c) => !c.failed));

    h.tg.text({ userId: ALLOWED_USER, text: 'are you there?' });
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: are you there?']);
  });

  it('answers a message sent while polling failed, once, after Telegram comes back', async () => {
    clock = new JumpClock();
    await h.start({}, { app: { clock } });
    await vi.waitFor(() => expect(h.logs('tg_connected')).toHaveLength(1));
    h.tg.failAlways('getUpdates', { status: 'drop' });
    // The long poll already held open delivers this one; the polls after it fail.
    h.tg.text({ userId: ALLOWED_USER, text: 'before the outage' });
    await h.tg.waitForCall('getUpdates', (c) => c.failed === true);
    h.tg.text({ userId: ALLOWED_USER, text: 'sent during the outage' });
    await clock.skipWaits(BACKOFF_MS, () => retried('telegram', 2));
    h.tg.clearFaults();

    await clock.skipWaits(BACKOFF_MS, () => settled(h, 2));
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'echo: before the outage',
      'echo: sent during the outage',
    ]);
    expect(h.logs('tg_unreachable')).toHaveLength(1);
    expect(h.logs('tg_reachable')).toHaveLength(1);
    expect(h.logs('tg_polling_stopped')).toEqual([]);
  });
});

describe('ingress stopped during start-up', () => {
  it('ends a getMe that Telegram accepts and never answers', async () => {
    const host = await silentHost();
    const home = mkdtempSync(path.join(tmpdir(), 'satchel-ingress-'));
    const store = openCoreStore(home);
    const lines: LogLine[] = [];
    const ingress = createIngress({
      bot: new Bot(TEST_TOKEN, { client: { apiRoot: host.root } }),
      inbox: createInboxRepo(store.db),
      clock: systemClock,
      log: createLogger({
        level: 'debug',
        secrets: [TEST_TOKEN],
        destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
      }),
      onEvent: () => {},
    });
    try {
      await ingress.start();
      await host.connected;
      // Resolves only if the unanswered call is aborted (else it waits for grammY's 500 s).
      await ingress.stop();
      expect(lines.filter((l) => l.event === 'tg_polling_stopped')).toEqual([]);
      expect(lines.filter((l) => l.event === 'tg_connected')).toEqual([]);
    } finally {
      store.close();
      await host.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('ingress when the inbox cannot be written', () => {
  it('holds the offset until the update is stored, then answers it exactly once', async () => {
    clock = new JumpClock();
    await h.start({}, { app: { clock } });
    await vi.waitFor(() => expect(h.logs('tg_connected')).toHaveLength(1));
    h.exec(
      `CREATE TRIGGER inbox_full BEFORE INSERT ON inbound_updates
       BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`,
    );
    const id = h.tg.text({ userId: ALLOWED_USER, text: 'remember me' });
    await clock.skipWaits(BACKOFF_MS, () => retried('inbox', 2));

    // Not stored, so not confirmed: no getUpdates has carried an offset past it.
    expect(h.tg.confirmedOffset()).toBeLessThanOrEqual(id);
    expect(h.tg.calls('getUpdates').every((c) => Number(c.params.offset ?? 0) <= id)).toBe(true);
    expect(h.rows('SELECT 1 FROM inbound_updates')).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([]);
    const failed = one('tg_inbox_write_failed');
    expect(failed.level).toBe(ERROR);
    expect(failed.cause).toContain('database or disk is full');

    h.exec('DROP TRIGGER inbox_full');
    await clock.skipWaits(BACKOFF_MS, () => settled(h, 1));
    await h.tg.waitForOffset(id + 1);
    h.tg.text({ userId: ALLOWED_USER, text: 'and this' });
    await settled(h, 2);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: remember me', 'echo: and this']);
    expect(one('tg_inbox_write_recovered').failedAttempts).toBeGreaterThanOrEqual(2);
    expect(h.logs('tg_polling_stopped')).toEqual([]);
  });
});

describe('ingress with malformed updates', () => {
  it('settles each malformed update with a log line and serves the next message', async () => {
    await h.start();
    const noChat = h.tg.pushUpdate({
      message: { message_id: 7, from: { id: ALLOWED_USER }, date: 0, text: 'lost chat' },
    });
    const noFrom = h.tg.pushUpdate({
      callback_query: {
        id: 'cb-x',
        data: 'pick:alpha',
        chat_instance: 'ci',
        message: { message_id: 1, date: 0, chat: { id: ALLOWED_USER, type: 'private' } },
      },
    });
    const garbage = h.tg.pushUpdate({ message: 'garbage' });
    h.tg.text({ userId: ALLOWED_USER, text: 'still here' });
    await settled(h, 4);

    expect(h.logs('tg_update_malformed').map((l) => l.updateId)).toEqual([noChat, noFrom, garbage]);
    expect(h.logs('tg_update_malformed')[0]?.problem).toMatch(/^message\.chat: /);
    expect(h.logs('tg_update_malformed')[1]?.problem).toMatch(/^callback_query\.from: /);
    expect(h.logs('tg_update_failed')).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: still here']);
  });

  it('settles a malformed update left pending by an earlier run instead of replaying it', async () => {
    await h.start();
    await h.stop();
    const db = new Database(path.join(h.home, 'satchel.db'));
    db.prepare(
      'INSERT INTO inbound_updates (update_id, payload, received_at) VALUES (?, ?, ?)',
    ).run(
      4242,
      JSON.stringify({ update_id: 4242, message: { message_id: 1, text: 'no chat' } }),
      Date.now(),
    );
    db.close();
    await h.restart();

    expect(h.logs('tg_update_malformed').map((l) => l.updateId)).toEqual([4242]);
    expect(h.rows('SELECT status FROM inbound_updates')).toEqual([{ status: 'done' }]);
    expect(h.logs('tg_update_failed')).toEqual([]);
  });
});

describe('start-up notes', () => {
  it('warns when ALLOWED_USER_IDS is empty, saying everyone is denied and how to fix it', async () => {
    await h.start({ ALLOWED_USER_IDS: '' });
    const warning = one('allowlist_empty');
    expect(warning.level).toBe(WARN);
    expect(warning.msg).toContain('ALLOWED_USER_IDS');
    expect(warning.msg).toContain('denied');
  });

  it('does not warn about the allowlist when it names someone', async () => {
    await h.start();
    expect(h.logs('allowlist_empty')).toEqual([]);
  });
});
