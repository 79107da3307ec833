/**
 * The durable inbox does not grow with what strangers send: a denied update's row keeps no
 * payload (SPEC §2), nor does any row once done, and done rows are pruned past a bound
 * (test/unit/inbox-repo.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALLOWED_USER, type Harness, STRANGER, settled, startHarness } from '../support/harness.ts';

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
});
