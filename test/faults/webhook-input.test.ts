/**
 * Webhook mode under hostile requests: bodies that are huge, not JSON, or JSON that is no
 * update. Each is refused with the right status and one log line, nothing is stored, and
 * the next real update is taken as usual.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bot } from 'grammy';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import type { InboundEvent } from '../../src/core/types.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createInboxRepo } from '../../src/store/inbox-repo.ts';
import { createWebhookIngress, type WebhookIngress } from '../../src/telegram/webhook.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { ALLOWED_USER } from '../support/harness.ts';

const SECRET = 'webhook-secret_0123456789';
let tg: FakeTelegram;
let home: string;
let store: CoreStore;
let ingress: WebhookIngress;
let events: InboundEvent[];
let lines: Record<string, unknown>[];
let url: URL;

beforeEach(async () => {
  tg = await FakeTelegram.start();
  home = mkdtempSync(path.join(tmpdir(), 'satchel-webhook-faults-'));
  store = openCoreStore(home);
  const inbox = createInboxRepo(store.db);
  events = [];
  lines = [];
  const port = await freePort();
  url = new URL(`http://127.0.0.1:${port}/tg/updates`);
  ingress = createWebhookIngress({
    bot: new Bot(TEST_TOKEN, { client: { apiRoot: tg.apiRoot } }),
    inbox,
    clock: systemClock,
    log: createLogger({
      level: 'debug',
      secrets: [TEST_TOKEN, SECRET],
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    }),
    webhook: { url: url.href, secret: SECRET, host: '127.0.0.1', port },
    onEvent: (event) => {
      events.push(event);
      inbox.markDone(
        event.origin.keys.map((key) => Number(key.slice('update:'.length))),
        Date.now(),
      );
    },
  });
  await ingress.start();
  await vi.waitFor(() => expect(ingress.status().polling).toBe(true), { timeout: 5000 });
});

afterEach(async () => {
  await ingress.stop();
  await tg.stop();
  store.close();
  rmSync(home, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * POSTs `chunks` to the webhook (with a Content-Length unless `chunked`) and resolves with
 * the status as soon as the answer comes, even while the body is still being sent (a
 * server may answer early and close).
 */
function post(chunks: Buffer[], o: { chunked?: boolean; secret?: string } = {}): Promise<number> {
  return answer(chunks, o).then((a) => a.status);
}

/** The status and the Connection header of the answer to a POST of `chunks`. */
function answer(
  chunks: Buffer[],
  o: { chunked?: boolean; secret?: string } = {},
): Promise<{ status: number; connection: string | undefined }> {
  const length = chunks.reduce((n, c) => n + c.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': o.secret ?? SECRET,
        ...(o.chunked ? {} : { 'content-length': length }),
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
    });
    // Writing into a connection the server closed after answering is expected here.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const write = (i: number): void => {
      if (i === chunks.length || answered) return void req.end();
      if (req.write(chunks[i]!)) write(i + 1);
      else req.once('drain', () => write(i + 1));
    };
    write(0);
  });
}

const json = (value: string) => [Buffer.from(value)];
const stored = () => store.sqlite.prepare('SELECT update_id FROM inbound_updates').all();
const refusals = () => lines.filter((l) => l.event === 'tg_webhook_request_refused');

describe('webhook request bodies', () => {
  it('answers 400 to a null body, bad JSON and JSON that is not an object; logs one line each', async () => {
    expect(await post(json('null'))).toBe(400);
    expect(await post(json('{"update_id": 1, "message": '))).toBe(400);
    expect(await post(json('[{"update_id": 1}]'))).toBe(400);
    expect(await post(json('42'))).toBe(400);
    expect(stored()).toEqual([]);
    expect(refusals().map((l) => l.status)).toEqual([400, 400, 400, 400]);
    expect(lines.filter((l) => l.event === 'tg_webhook_request_failed')).toEqual([]);
  });

  it('answers 413 to a body over 1 MB, announced or not, without storing it', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    expect(await post([Buffer.from('{"update_id": 5, "x": "'), big, Buffer.from('"}')])).toBe(413);
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(64 * 1024, 0x20));
    expect(
      await post([Buffer.from('{"pad": "'), ...chunks, Buffer.from('"}')], { chunked: true }),
    ).toBe(413);
    expect(stored()).toEqual([]);
    expect(refusals().map((l) => l.status)).toEqual([413, 413]);
  });

  it('answers 401 to a stranger and closes the connection instead of reading the body', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    expect(await answer([big], { secret: 'not-the-secret' })).toEqual({
      status: 401,
      connection: 'close',
    });
    expect(refusals()).toEqual([]);
  });

  it('takes the next real update after the refusals', async () => {
    expect(await post(json('null'))).toBe(400);
    expect(await post([Buffer.alloc(1024 * 1024 + 1, 0x20)])).toBe(413);
    const id = tg.text({ userId: ALLOWED_USER, text: 'still here' });
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(events[0]).toMatchObject({ kind: 'text', text: 'still here' });
    expect(stored()).toEqual([{ update_id: id }]);
  });
});
