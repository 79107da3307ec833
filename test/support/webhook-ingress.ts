import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bot } from 'grammy';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import type { InboundEvent } from '../../src/core/types.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createInboxRepo, type InboxRepo } from '../../src/store/inbox-repo.ts';
import { createWebhookIngress, type WebhookIngress } from '../../src/telegram/webhook.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { freePort } from './dead-hosts.ts';

export const WEBHOOK_SECRET = 'webhook-secret_0123456789';

/**
 * The webhook ingress alone, on the fake Telegram server and a fresh core store: what the
 * webhook tests run against, without the rest of the app.
 */
export interface WebhookRig {
  tg: FakeTelegram;
  store: CoreStore;
  /** The inbox the ingress writes to (the same object, so a test may wrap its methods). */
  inbox: InboxRepo;
  ingress: WebhookIngress;
  /** The events handed on, each marked done at once. */
  events: InboundEvent[];
  /** The ingress's log lines, parsed. */
  lines: Record<string, unknown>[];
  /** The webhook's URL, on a free port of 127.0.0.1. */
  url: string;
  /** How often the ingress said Telegram is heard from (the app then flushes the outbox). */
  reachable: number;
  /** Starts the ingress and waits until it takes updates. */
  start(): Promise<void>;
  /** Stops the ingress and the fake, and removes the store. */
  close(): Promise<void>;
}

/** A rig with its store in a fresh temporary directory named from `prefix`; not started. */
export async function webhookRig(prefix: string): Promise<WebhookRig> {
  const tg = await FakeTelegram.start();
  const home = mkdtempSync(path.join(tmpdir(), prefix));
  const store = openCoreStore(home);
  const inbox = createInboxRepo(store.db);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/tg/updates`;
  const lines: Record<string, unknown>[] = [];
  const events: InboundEvent[] = [];
  const ingress = createWebhookIngress({
    bot: new Bot(TEST_TOKEN, { client: { apiRoot: tg.apiRoot } }),
    inbox,
    clock: systemClock,
    log: createLogger({
      level: 'debug',
      secrets: [TEST_TOKEN, WEBHOOK_SECRET],
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    }),
    webhook: { url, secret: WEBHOOK_SECRET, host: '127.0.0.1', port },
    onEvent: (event) => {
      events.push(event);
      inbox.markDone(
        event.origin.keys.map((key) => Number(key.slice('update:'.length))),
        Date.now(),
      );
    },
    onReachable: () => rig.reachable++,
  });
  const rig: WebhookRig = {
    tg,
    store,
    inbox,
    ingress,
    events,
    lines,
    url,
    reachable: 0,
    async start() {
      await ingress.start();
      await vi.waitFor(() => expect(ingress.status().polling).toBe(true), { timeout: 5000 });
    },
    async close() {
      await ingress.stop();
      await tg.stop();
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return rig;
}

/**
 * The preamble of a webhook test file, called at its top: a fresh rig (`webhookRig`) before
 * each test, started first when `start` is set, and closed after it. The object returned
 * stands for the running test's rig.
 */
export function webhookPerTest(prefix: string, options: { start?: boolean } = {}): WebhookRig {
  let rig: WebhookRig | undefined;
  beforeEach(async () => {
    rig = await webhookRig(prefix);
    if (options.start) await rig.start();
  });
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });
  return new Proxy({} as WebhookRig, {
    get(_target, key) {
      if (!rig) throw new Error('webhookPerTest: no test is running');
      return Reflect.get(rig, key);
    },
  });
}
