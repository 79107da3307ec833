import { describe, expect, it, vi } from 'vitest';
import { PROVIDER_UNAVAILABLE, STOPPED } from '../../src/core/errors.ts';
import { notAuthorized } from '../../src/telegram/gate.ts';
import { BUSY } from '../../src/turn/conversations.ts';
import { lastUserText, systemText, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, harnessPerTest, STRANGER, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const OTHER_USER = 222;
const h = harnessPerTest();

/** Waits until the batcher holds a 400 ms window open past `after`; returns when it ends. */
async function batchWindowEndingAfter(clock: JumpClock, after: number): Promise<number> {
  return vi.waitFor(
    () => {
      const window = clock.pendingTimers().find((t) => t.ms === 400 && t.at > after);
      if (!window) throw new Error('no batch window open past the last one');
      return window.at;
    },
    { interval: 5 },
  );
}

describe('the turn spine, end to end', () => {
  it('answers an allowed text once, and stores the messages and a usage row', async () => {
    await h.start();
    h.model.enqueue({ text: 'Hello **there**', usage: { input: 42, cached: 2, output: 7 } });

    h.tg.text({ userId: ALLOWED_USER, text: 'hi satchel' });
    const reply = await h.tg.waitForCall('sendMessage');
    await settled(h, 1);

    expect(reply.params).toMatchObject({
      chat_id: ALLOWED_USER,
      text: 'Hello <b>there</b>',
      parse_mode: 'HTML',
    });
    expect(reply.params.message_thread_id).toBeUndefined();
    expect(h.tg.calls('sendMessage')).toHaveLength(1);

    const [request] = h.model.chatRequests();
    expect(request?.model).toBe('gpt-4.1-mini');
    expect(lastUserText(request!)).toBe('hi satchel');
    expect(systemText(request!)).toContain('satchel');

    const messages = h.rows<{ role: string; content: string }>(
      'SELECT role, content FROM messages ORDER BY id',
    );
    expect(messages).toEqual([
      { role: 'user', content: 'hi satchel' },
      { role: 'assistant', content: 'Hello **there**' },
    ]);
    const usage = h.rows<Record<string, unknown>>('SELECT * FROM usage_events');
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      kind: 'llm',
      provider: 'openai',
      model: 'gpt-4.1-mini',
      chat_id: String(ALLOWED_USER),
      input_tokens: 42,
      cached_input_tokens: 2,
      output_tokens: 7,
      price_known: 1,
      ok: 1,
      day: new Date().toISOString().slice(0, 10),
    });
    // 40 fresh input tokens at $0.40/M, 2 cached at $0.10/M, 7 output at $1.60/M.
    expect(usage[0]?.cost_usd).toBeCloseTo((40 * 0.4 + 2 * 0.1 + 7 * 1.6) / 1e6, 12);
    expect(h.logs('turn_completed')).toHaveLength(1);
  });

  it('with DM_PAIRING=off gives a denied user one short reply and does nothing else', async () => {
    await h.start({ DM_PAIRING: 'off' });
    h.tg.addFile('voice-1', Buffer.from('OggS fake voice'));

    h.tg.text({ userId: STRANGER, text: 'hello?' });
    h.tg.text({ userId: STRANGER, text: '/help' });
    h.tg.callback({ userId: STRANGER, data: 'pick:journal' });
    h.tg.voice({ userId: STRANGER, fileId: 'voice-1', duration: 3 });
    h.tg.text({ userId: STRANGER, chatId: -100500, chatType: 'supergroup', text: '/new' });
    await settled(h, 5);

    expect(h.tg.sent()).toHaveLength(1);
    expect(h.tg.sent()[0]?.params).toMatchObject({
      chat_id: STRANGER,
      text: notAuthorized(String(STRANGER)),
    });
    // The stranger learns their own id and how the owner lets them in.
    expect(h.tg.texts(STRANGER)[0]).toContain(`Your Telegram user id is ${STRANGER}.`);
    expect(h.tg.texts(STRANGER)[0]).toContain('ALLOWED_USER_IDS');
    expect(h.model.requests()).toHaveLength(0);
    expect(h.tg.calls('getFile')).toHaveLength(0);
    expect(h.tg.downloads()).toHaveLength(0);
    expect(h.tg.calls('answerCallbackQuery')).toHaveLength(0);
    expect(h.rows('SELECT 1 FROM messages')).toHaveLength(0);
    expect(h.rows('SELECT 1 FROM sessions')).toHaveLength(0);
    expect(h.logs('tg_auth_denied').map((l) => l.userId)).toEqual(Array(5).fill(STRANGER));
  });

  it('batches texts sent 100 ms apart into one turn, and runs a command after it', async () => {
    const clock = new JumpClock();
    await h.start({ BATCH_WINDOW_MS: '400' }, { app: { clock } });
    h.model.enqueue({ text: 'got all three', delayMs: 300 });

    // Each text reaches the batcher and restarts its 400 ms window; 100 ms of app time pass
    // between them.
    let windowEnd = Number.NEGATIVE_INFINITY;
    for (const [i, text] of ['first part', 'second part', 'third part'].entries()) {
      if (i > 0) clock.advance(100);
      h.tg.text({ userId: ALLOWED_USER, text });
      windowEnd = await batchWindowEndingAfter(clock, windowEnd);
    }
    // The command flushes the batch first, so no window has to run out.
    h.tg.text({ userId: ALLOWED_USER, text: '/help' });
    await settled(h, 4);

    const requests = h.model.chatRequests();
    expect(requests).toHaveLength(1);
    expect(userTexts(requests[0]!)).toEqual(['first part\nsecond part\nthird part']);
    const texts = h.tg.texts(ALLOWED_USER);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe('got all three');
    expect(texts[1]).toContain('/new');
  });

  it('/stop in the batch window drops the texts still gathering, before any model call', async () => {
    await h.start({ BATCH_WINDOW_MS: '500' });
    h.tg.text({ userId: ALLOWED_USER, text: 'delete everything' });
    h.tg.text({ userId: ALLOWED_USER, text: '/stop' });
    await settled(h, 2);
    h.tg.text({ userId: ALLOWED_USER, text: 'just this' });
    await settled(h, 3);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([STOPPED, 'echo: just this']);
    const requests = h.model.chatRequests();
    expect(requests).toHaveLength(1);
    expect(userTexts(requests[0]!)).toEqual(['just this']);
    expect(h.logs('turn_stop')[0]).toMatchObject({ stopped: false, dropped: 1 });
  });

  it('on shutdown starts no waiting turn; it is answered once after the restart', async () => {
    await h.start();
    h.model.enqueue({ text: 'first answer', delayMs: 400 });
    h.tg.text({ userId: ALLOWED_USER, text: 'p0' });
    await h.model.waitForRequest(1);
    h.tg.text({ userId: ALLOWED_USER, text: 'p1' });
    await vi.waitFor(() => expect(h.rows('SELECT 1 FROM inbound_updates')).toHaveLength(2));
    await h.stop();

    expect(h.model.chatRequests()).toHaveLength(1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['first answer']);
    await h.restart();
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['first answer', 'echo: p1']);
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(userTexts(h.model.chatRequests()[1]!)).toEqual(['p0', 'p1']);
  });

  it("does not hold chat B behind chat A's slow answer", async () => {
    await h.start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${OTHER_USER}` });
    // A's answer waits until B's has been sent (an event, not a fixed delay).
    let release = () => {};
    const answeredB = new Promise<void>((resolve) => (release = resolve));
    h.model.setDefault((request) =>
      lastUserText(request).includes('slow')
        ? { text: 'slow answer', until: answeredB }
        : { text: 'fast answer' },
    );

    h.tg.text({ userId: ALLOWED_USER, text: 'a slow question' });
    await h.model.waitForRequest(1);
    h.tg.text({ userId: OTHER_USER, text: 'a quick one' });

    const fast = await h.tg.waitForCall('sendMessage', (c) => c.params.chat_id === OTHER_USER);
    expect(fast.params.text).toBe('fast answer');
    expect(h.tg.texts(ALLOWED_USER)).toEqual([]);
    release();

    const slow = await h.tg.waitForCall('sendMessage', (c) => c.params.chat_id === ALLOWED_USER);
    expect(slow.params.text).toBe('slow answer');
    expect(slow.at).toBeGreaterThan(fast.at);
  });

  it('lets five prompts wait behind a running turn and says it is busy beyond that', async () => {
    await h.start();
    // The first answer waits until the sixth prompt was refused (an event, not a fixed delay).
    let release = () => {};
    const refused = new Promise<void>((resolve) => (release = resolve));
    h.model.enqueue({ text: 'first answer', until: refused });
    h.tg.text({ userId: ALLOWED_USER, text: 'p0' });
    await h.model.waitForRequest(1);
    for (let i = 1; i <= 6; i++) h.tg.text({ userId: ALLOWED_USER, text: `p${i}` });
    await h.tg.waitForCall('sendMessage', (c) => c.params.text === BUSY);
    release();
    await settled(h, 7);

    const texts = h.tg.texts(ALLOWED_USER);
    expect(texts[0]).toBe(BUSY);
    expect(texts.slice(1)).toEqual([
      'first answer',
      'echo: p1',
      'echo: p2',
      'echo: p3',
      'echo: p4',
      'echo: p5',
    ]);
    expect(h.model.chatRequests()).toHaveLength(6);
    expect(h.logs('turn_rejected_busy')).toHaveLength(1);
  });

  it('tells the user about a model error, keeps their message and answers the next one', async () => {
    await h.start(
      { LLM_TIMEOUT_MS: '1000' },
      { app: { modelRetry: { retries: 2, delayMs: () => 0 } } },
    );
    // Three 500s use up the retries of the first turn; a stall is not retried.
    h.model.failNext(3, 500);
    h.model.enqueue({ hang: true }, { text: 'back to normal' });

    h.tg.text({ userId: ALLOWED_USER, text: 'first try' });
    await h.tg.waitForCalls('sendMessage', 1);
    h.tg.text({ userId: ALLOWED_USER, text: 'second try' });
    await h.tg.waitForCalls('sendMessage', 2);
    h.tg.text({ userId: ALLOWED_USER, text: 'third try' });
    await h.tg.waitForCalls('sendMessage', 3);
    await settled(h, 3);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      PROVIDER_UNAVAILABLE,
      PROVIDER_UNAVAILABLE,
      'back to normal',
    ]);
    expect(userTexts(h.model.chatRequests()[4]!)).toEqual(['first try', 'second try', 'third try']);
    expect(h.logs('provider_error')).toHaveLength(4);
    expect(h.logs('turn_failed')).toHaveLength(2);
    const usage = h.rows<{ ok: number }>('SELECT ok FROM usage_events ORDER BY id');
    expect(usage.map((u) => u.ok)).toEqual([0, 0, 0, 0, 1]);
  });
});
