/**
 * The durable inbox does not grow with what strangers send: a denied update's row keeps no
 * payload (SPEC §2), nor does any row once done, and done rows are pruned past a bound
 * (test/unit/inbox-repo.test.ts).
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { freePort } from '../support/dead-hosts.ts';
import { ALLOWED_USER, type Harness, STRANGER, settled, startHarness } from '../support/harness.ts';
import { WEBHOOK_SECRET } from '../support/webhook-ingress.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const payloadBytes = () =>
  h!.rows<{ n: number }>('SELECT coalesce(sum(length(payload)), 0) AS n FROM inbound_updates')[0]!
    .n;

describe('the durable inbox and strangers', () => {
  it('keeps nothing of 1,000 denied 4 KB messages, then or after a restart', async () => {
    h = await startHarness();
    const filler = 'let me in '.repeat(410); // 4,100 characters
    for (let i = 0; i < 1000; i++) h.tg.text({ userId: STRANGER, text: `${i} ${filler}` });
    await settled(h, 1000, 60_000);
    // One notice (then the 10-minute cooldown), and nothing of the 4 MB sent is stored.
    expect(h.tg.texts(STRANGER)).toHaveLength(1);
    expect(h.logs('tg_auth_denied')).toHaveLength(1000);
    expect(h.rows('SELECT count(*) AS n FROM inbound_updates')).toEqual([{ n: 1000 }]);
    expect(payloadBytes()).toBe(0);

    await h.restart();
    h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await settled(h, 1001);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(payloadBytes()).toBe(0);
  }, 90_000);

  it('keeps nothing of messages strangers send to the webhook', async () => {
    const port = await freePort();
    h = await startHarness({
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/tg/updates`,
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      TELEGRAM_WEBHOOK_HOST: '127.0.0.1',
      TELEGRAM_WEBHOOK_PORT: String(port),
    });
    await h.tg.waitForCall('setWebhook');
    for (let i = 0; i < 50; i++) h.tg.text({ userId: STRANGER, text: `${i} let me in` });
    await settled(h, 50, 30_000);
    expect(h.logs('tg_auth_denied')).toHaveLength(50);
    expect(payloadBytes()).toBe(0);
  }, 60_000);

  it("keeps nothing of a stranger's update replayed after a crash", async () => {
    h = await startHarness();
    await h.stop();
    const update = {
      update_id: 4242,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: STRANGER, type: 'private', first_name: 'S' },
        from: { id: STRANGER, is_bot: false, first_name: 'S' },
        text: 'left pending by a crash',
      },
    };
    const db = new Database(path.join(h.home, 'satchel.db'));
    db.prepare(
      'INSERT INTO inbound_updates (update_id, payload, received_at) VALUES (?, ?, ?)',
    ).run(4242, JSON.stringify(update), Date.now());
    db.close();
    await h.restart();
    await settled(h, 1);
    expect(h.logs('tg_auth_denied')).toMatchObject([{ userId: STRANGER }]);
    expect(payloadBytes()).toBe(0);
  });
});
