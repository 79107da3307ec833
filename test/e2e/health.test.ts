import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bot } from 'grammy';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { health, healthHandler } from '../../src/ops/health.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createInboxRepo } from '../../src/store/inbox-repo.ts';
import { Database } from '../../src/store/sqlite.ts';
import { POLL_STALE_MS, telegramHealth } from '../../src/telegram/health.ts';
import { createIngress, type Ingress } from '../../src/telegram/ingress.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { ALLOWED_USER } from '../support/harness.ts';

let tg: FakeTelegram;
let home: string;
let store: CoreStore;
let ingress: Ingress;
let server: Server;
let url: string;

beforeEach(async () => {
  tg = await FakeTelegram.start();
  home = mkdtempSync(path.join(tmpdir(), 'satchel-health-'));
  store = openCoreStore(home);
  const inbox = createInboxRepo(store.db);
  ingress = createIngress({
    bot: new Bot(TEST_TOKEN, { client: { apiRoot: tg.apiRoot } }),
    inbox,
    clock: systemClock,
    log: createLogger({ level: 'silent', secrets: [] }),
    onEvent: (event) => {
      inbox.markDone(
        event.origin.keys.map((key) => Number(key.slice('update:'.length))),
        Date.now(),
      );
    },
  });
  // The dashboard mounts the handler; here it is the whole server.
  const handler = healthHandler({
    sqlite: store.sqlite,
    edges: [{ platform: 'tg', health: telegramHealth(ingress, systemClock) }],
  });
  server = createServer((req, res) =>
    req.url === '/healthz' ? handler(req, res) : res.writeHead(404).end(),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
});

afterEach(async () => {
  await ingress.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await tg.stop();
  store.close();
  rmSync(home, { recursive: true, force: true });
});

/** Telegram's section of a `/healthz` body. */
const tgOf = (body: Record<string, unknown>) =>
  (body.edges as Record<string, Record<string, number | null>>).tg!;

async function get() {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('/healthz', () => {
  it('answers without a token: polling, last update age, pending outbox, database', async () => {
    await ingress.start();
    tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await vi.waitFor(() => expect(ingress.status().lastUpdateAt).toBeDefined(), { timeout: 5000 });

    const { status, body } = await get();
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['db_writable', 'edges', 'ok', 'pending_outbox']);
    // Telegram's fields are its own section, under its platform.
    const tgSection = tgOf(body);
    expect(Object.keys(tgSection).sort()).toEqual([
      'last_poll_age_ms',
      'last_update_age_ms',
      'mode',
      'ok',
      'polling',
    ]);
    expect(body).toMatchObject({
      ok: true,
      edges: { tg: { ok: true, mode: 'polling', polling: true } },
      pending_outbox: 0,
      db_writable: true,
    });
    expect(tgSection.last_update_age_ms).toBeGreaterThanOrEqual(0);
    expect(tgSection.last_update_age_ms).toBeLessThan(5000);
  });

  it('shows no usage data, no message and no token, whatever the database holds', async () => {
    await ingress.start();
    tg.text({ userId: ALLOWED_USER, text: 'my secret diary entry' });
    await vi.waitFor(() => expect(ingress.status().lastUpdateAt).toBeDefined(), { timeout: 5000 });
    store.sqlite
      .prepare(
        `INSERT INTO outbox (channel, chat_id, kind, payload, created_at)
         VALUES ('tg', ?, 'text', '{"text":"a reply waiting"}', ?)`,
      )
      .run(ALLOWED_USER, Date.now());
    const response = await fetch(url);
    const text = await response.text();
    expect(JSON.parse(text).pending_outbox).toBe(1);
    for (const secret of [TEST_TOKEN, 'diary', 'a reply waiting', 'cost', 'tokens', 'usd'])
      expect(text).not.toContain(secret);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('is 503 before Telegram first answers, and after polling stops', async () => {
    let { status, body } = await get();
    expect(status).toBe(503);
    expect(body).toMatchObject({
      ok: false,
      edges: { tg: { ok: false, polling: false, last_poll_age_ms: null } },
    });

    await ingress.start();
    tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await vi.waitFor(() => expect(ingress.status().lastFetchAt).toBeDefined(), { timeout: 5000 });
    expect((await get()).status).toBe(200);

    await ingress.stop();
    ({ status, body } = await get());
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, edges: { tg: { ok: false, polling: false } } });
  });

  it('is healthy as soon as polling is up on an idle bot, not when its first long poll ends', async () => {
    await ingress.start();
    // No update comes: the long poll is held open, as for a quiet bot.
    await vi.waitFor(() => expect(tg.pendingPolls()).toBe(1), { timeout: 5000 });
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ok: true,
      edges: { tg: { ok: true, polling: true, last_update_age_ms: null } },
    });
    expect(tgOf(body).last_poll_age_ms).toBeLessThan(5000);
    // The first poll only asked what was there (timeout 0); the one held open is a long one.
    expect(tg.calls('getUpdates').map((c) => Number(c.params.timeout))).toEqual([0, 30]);
  });

  it('says the database is not writable while another process holds its write lock', async () => {
    await ingress.start();
    tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await vi.waitFor(() => expect(ingress.status().lastFetchAt).toBeDefined(), { timeout: 5000 });
    const other = new Database(path.join(home, 'satchel.db'));
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const started = Date.now();
      const { status, body } = await get();
      expect(status).toBe(503);
      expect(body).toMatchObject({
        ok: false,
        edges: { tg: { ok: true, polling: true } },
        db_writable: false,
      });
      expect(Date.now() - started).toBeLessThan(2000); // the probe does not wait out 5 s
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    expect((await get()).body.db_writable).toBe(true);
    // The probe left the connection's own busy timeout as it was.
    expect(store.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('is unhealthy when Telegram has not answered a poll for a while', () => {
    const at = 1_000_000;
    const snapshot = (now: number) =>
      health({
        sqlite: store.sqlite,
        edges: [
          {
            platform: 'tg',
            health: telegramHealth(
              { status: () => ({ polling: true, lastFetchAt: at }) },
              { ...systemClock, now: () => now },
            ),
          },
        ],
      });
    expect(snapshot(at + POLL_STALE_MS - 1)).toMatchObject({
      ok: true,
      edges: { tg: { last_update_age_ms: null } },
    });
    expect(snapshot(at + POLL_STALE_MS)).toMatchObject({
      ok: false,
      edges: { tg: { ok: false, polling: true, last_poll_age_ms: POLL_STALE_MS } },
    });
  });
});
