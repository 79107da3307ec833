import { describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { health } from '../../src/ops/health.ts';
import { telegramHealth } from '../../src/telegram/health.ts';
import { ALLOWED_USER } from '../support/harness.ts';
import { WEBHOOK_SECRET as SECRET, webhookPerTest } from '../support/webhook-ingress.ts';

const w = webhookPerTest('satchel-webhook-');

const stored = () => w.store.sqlite.prepare('SELECT update_id, status FROM inbound_updates').all();
/** A private text message from the allowed user, as Telegram sends it. */
const textUpdate = (updateId: number, text: string) => ({
  update_id: updateId,
  message: {
    message_id: 1,
    date: Math.floor(Date.now() / 1000),
    chat: { id: ALLOWED_USER, type: 'private', first_name: 'User' },
    from: { id: ALLOWED_USER, is_bot: false, first_name: 'User' },
    text,
  },
});

describe('webhook mode', () => {
  it('registers the webhook with its secret, and takes each update once, stored first', async () => {
    await w.start();
    const [set] = w.tg.calls('setWebhook');
    expect(set?.params).toMatchObject({ url: w.url, secret_token: SECRET });
    expect(set?.params.allowed_updates).toEqual([
      'message',
      'edited_message',
      'callback_query',
      'message_reaction',
    ]);
    expect(w.tg.calls('getUpdates')).toHaveLength(0);

    const id = w.tg.text({ userId: ALLOWED_USER, text: 'hello over the webhook' });
    await vi.waitFor(() => expect(w.events).toHaveLength(1));
    expect(w.events[0]).toMatchObject({ kind: 'text', text: 'hello over the webhook' });
    // The 200 does not wait for the update to be handed on, but it can reach Telegram after.
    await vi.waitFor(() => expect(w.tg.deliveries()).toEqual([{ updateId: id, status: 200 }]));
    expect(stored()).toEqual([{ update_id: id, status: 'done' }]);
    expect(
      health({
        sqlite: w.store.sqlite,
        edges: [{ platform: 'tg', health: telegramHealth(w.ingress, systemClock) }],
      }),
    ).toMatchObject({
      ok: true,
      edges: { tg: { ok: true, mode: 'webhook', polling: true, last_poll_age_ms: null } },
    });
  });

  it('ignores a repeated delivery of the same update, answering 200 so Telegram stops', async () => {
    await w.start();
    const id = w.tg.text({ userId: ALLOWED_USER, text: 'only once' });
    await vi.waitFor(() => expect(w.events).toHaveLength(1));
    const update = textUpdate(id, 'only once');
    expect((await w.tg.postToWebhook(update)).status).toBe(200);
    expect((await w.tg.postToWebhook(update)).status).toBe(200);
    expect(w.events).toHaveLength(1);
    expect(stored()).toHaveLength(1);
    expect(w.lines.filter((l) => l.event === 'tg_update_duplicate')).toHaveLength(2);
  });

  it('answers a wrong or missing secret with 401, and nothing is stored or run', async () => {
    await w.start();
    const update = { update_id: 77, message: { message_id: 1, date: 0, text: 'forged' } };
    const wrong = await w.tg.postToWebhook(update, 'not-the-secret');
    expect(wrong.status).toBe(401);
    expect((await w.tg.postToWebhook(update, null)).status).toBe(401);
    expect(stored()).toEqual([]);
    expect(w.events).toEqual([]);
    expect(JSON.stringify(w.lines)).not.toContain(SECRET);
    // A forged request says nothing about Telegram: the outbox is not sent on by it.
    expect(w.reachable).toBe(0);
  });

  it('takes an update from Telegram as word that it is reachable: held-back replies go now', async () => {
    await w.start();
    expect(w.reachable).toBe(0);
    w.tg.text({ userId: ALLOWED_USER, text: 'hello again' });
    await vi.waitFor(() => expect(w.events).toHaveLength(1));
    expect(w.reachable).toBe(1);
  });

  it('answers only POSTs at the URL’s path', async () => {
    await w.start();
    const base = new URL(w.url);
    expect((await fetch(`${base.origin}/elsewhere`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(w.url)).status).toBe(405);
  });

  it('does not answer 200 before the update is stored: a failed write is delivered again', async () => {
    await w.start();
    const record = w.inbox.record.bind(w.inbox);
    let failures = 1;
    w.inbox.record = (updates, now) => {
      if (failures-- > 0) throw new Error('SQLITE_FULL: database or disk is full');
      return record(updates, now);
    };
    const id = w.tg.text({ userId: ALLOWED_USER, text: 'kept despite the full disk' });
    await vi.waitFor(() => expect(w.events).toHaveLength(1), { timeout: 5000 });
    await vi.waitFor(() =>
      expect(w.tg.deliveries()).toEqual([
        { updateId: id, status: 500 },
        { updateId: id, status: 200 },
      ]),
    );
    expect(w.events[0]).toMatchObject({ text: 'kept despite the full disk' });
    expect(w.lines.some((l) => l.event === 'tg_webhook_request_failed')).toBe(true);
  });

  it('replays stored updates that were not finished before the last stop', async () => {
    w.inbox.record([{ updateId: 5, payload: textUpdate(5, 'left over') }], Date.now());
    await w.start();
    expect(w.events.map((e) => (e.kind === 'text' ? e.text : e.kind))).toEqual(['left over']);
  });

  it('stops taking updates on stop', async () => {
    await w.start();
    await w.ingress.stop();
    expect(w.ingress.status().polling).toBe(false);
    await expect(fetch(w.url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
