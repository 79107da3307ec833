/**
 * Delivery under Telegram faults, through the whole app: a reply Telegram cannot take now is
 * delivered later in order without a restart, a streamed message that vanished is replaced,
 * an answer with nothing visible still reaches the user, shutdown holds its grace under a
 * long flood wait, and a crowd of strangers never delays the owner.
 */
import { describe, expect, it, vi } from 'vitest';
import { ALLOWED_USER, harnessPerTest, STRANGER, settled } from '../support/harness.ts';

const GROUP = -1001234;
const FAST_RETRIES = { outbox: { retryDelaysMs: [20, 40], stallDelaysMs: [150] } };
const h = harnessPerTest();

const replies = () => h.tg.texts(ALLOWED_USER);

describe('delivery faults', () => {
  it('delivers a reply held back by a 502 storm before the next one, without a restart', async () => {
    await h.start({}, { app: FAST_RETRIES });
    h.tg.failAlways('sendMessage', { status: 502 });

    h.tg.text({ userId: ALLOWED_USER, text: 'A' });
    await h.tg.waitForCalls('sendMessage', 4);
    expect(h.logs('tg_send_failed')).toHaveLength(1);

    h.tg.clearFaults();
    h.tg.text({ userId: ALLOWED_USER, text: 'B' });
    await settled(h, 2);

    expect(replies()).toEqual(['echo: A', 'echo: B']);
    expect(h.rows("SELECT status FROM outbox WHERE status != 'sent'")).toEqual([]);
  });

  it('sends the final answer as a new message when the streamed one was deleted', async () => {
    await h.start();
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    h.model.enqueue({ text: answer, chunks: 4, chunkDelayMs: 400 });
    h.tg.failAlways('editMessageText', {
      status: 400,
      description: 'Bad Request: message to edit not found',
    });

    h.tg.text({
      userId: ALLOWED_USER,
      chatId: GROUP,
      chatType: 'supergroup',
      text: '@satchel_test_bot go',
    });
    await settled(h, 1, 15_000);

    const texts = h.tg.texts(GROUP);
    expect(texts.length).toBeGreaterThanOrEqual(2);
    // The first chunk was shown; the whole answer then arrived as a message of its own.
    expect(answer.startsWith(texts[0]!)).toBe(true);
    expect(texts.at(-1)).toBe(answer);
    expect(h.logs('tg_edit_target_gone').length).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['#', '#'],
    ['> ', '&gt;'],
    ['&nbsp;', '&amp;nbsp;'],
    ['[ ](https://e.com)', '[ ](https://e.com)'],
    ['```\n```', '```\n```'],
    ['\u200b', '(no answer)'],
  ])('answers %j with something the user can see', async (answer, shown) => {
    await h.start();
    h.model.enqueue({ text: answer });
    h.tg.text({ userId: ALLOWED_USER, text: 'say nothing' });
    await settled(h, 1);
    expect(replies()).toEqual([shown]);
  });

  it('holds the shutdown grace during a long flood wait and sends the reply once after a restart', async () => {
    await h.start({}, { app: { shutdownGraceMs: 1000 } });
    h.tg.fail('sendMessage', { status: 429, retryAfter: 60 });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await h.tg.waitForCall('sendMessage');

    const started = Date.now();
    await h.stop();
    // The flood wait has 60 s to go; shutdown does not wait for it.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(h.logs('satchel_stopped')).toMatchObject([{ clean: false }]);
    expect(h.tg.calls('sendMessage')).toHaveLength(1);

    await h.restart();
    await settled(h, 1);
    expect(replies()).toEqual(['echo: hello']);
  });

  it('answers the owner ahead of a crowd of strangers', async () => {
    await h.start({}, { app: { shutdownGraceMs: 500 } });
    for (let i = 0; i < 40; i++) h.tg.text({ userId: STRANGER + i, text: 'let me in' });
    h.tg.text({ userId: ALLOWED_USER, text: 'mine' });

    await vi.waitFor(() => expect(replies()).toContain('echo: mine'), { timeout: 10_000 });
    // The 21st stranger found pairing full: the owner is told so, once, besides the answer.
    await vi.waitFor(() => expect(replies()).toHaveLength(2));
    expect(replies().filter((t) => t !== 'echo: mine')).toEqual([
      expect.stringMatching(/^Pairing is full: 20 codes are waiting for you/),
    ]);
    const calls = h.tg.calls('sendMessage');
    const ownerAt = calls.findIndex((c) => Number(c.params.chat_id) === ALLOWED_USER);
    // Strangers get at most 5 replies a second and never the slots kept for allowed users.
    expect(ownerAt).toBeLessThanOrEqual(10);
    expect(calls.filter((c) => Number(c.params.chat_id) !== ALLOWED_USER).length).toBeLessThan(40);
  });
});
