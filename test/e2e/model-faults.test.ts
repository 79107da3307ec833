import { describe, expect, it, vi } from 'vitest';
import { CUT_NOTE } from '../../src/agent/cut-answer.ts';
import type { RetryPolicy } from '../../src/agent/retry.ts';
import { type Clock, systemClock } from '../../src/core/clock.ts';
import { PROVIDER_UNAVAILABLE } from '../../src/core/errors.ts';
import { lastUserText } from '../fakes/model-server.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const h = harnessPerTest();

/** Retries without waiting, so a storm takes no time. */
const noWait: RetryPolicy = { retries: 2, delayMs: () => 0 };
const ledger = () =>
  h.rows<{ provider: string; ok: number; error: string | null }>(
    'SELECT provider, ok, error FROM usage_events ORDER BY id',
  );
const withFallback = (url: string) => ({
  SATCHEL_PACKS: fixturePacks(['alpha']),
  LLM_FALLBACK: 'groq:llama-3.3-70b-versatile',
  GROQ_BASE_URL: url,
});
const providerEnv = {
  openai: () => ({}),
  groq: (url: string) => ({
    LLM_PROVIDER: 'groq',
    GROQ_BASE_URL: url,
    LLM_MODEL: 'llama-3.3-70b-versatile',
  }),
  gemini: (url: string) => ({
    LLM_PROVIDER: 'gemini',
    GEMINI_BASE_URL: url,
    LLM_MODEL: 'gemini-2.5-flash',
  }),
};
const providers = Object.keys(providerEnv) as (keyof typeof providerEnv)[];
/** The app on the alpha pack with `provider` as its primary model, retrying without waiting. */
const startRetrying = (
  provider: keyof typeof providerEnv = 'openai',
  env: Record<string, string> = {},
) =>
  h.start(
    ({ model }) => ({
      SATCHEL_PACKS: fixturePacks(['alpha']),
      ...providerEnv[provider](model.url),
      ...env,
    }),
    { app: { modelRetry: noWait } },
  );

describe('a failing primary model', () => {
  it('is retried on a 503 storm and answers, with a ledger row per attempt', async () => {
    await startRetrying();
    h.model.failNext(2, 503);
    h.say('hello');
    await settled(h, 1);

    expect(h.model.chatRequests()).toHaveLength(3);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(ledger().map((r) => r.ok)).toEqual([0, 0, 1]);
    expect(h.logs('provider_retry')).toHaveLength(2);
  });

  it('waits the Retry-After of a 429 on the injected clock', async () => {
    const waits: number[] = [];
    // The app's clock, except that the 17 s wait the provider asks for passes at once.
    const clock: Clock = {
      ...systemClock,
      setTimeout: (fn, ms) => {
        waits.push(ms);
        return systemClock.setTimeout(fn, ms === 17_000 ? 0 : ms);
      },
    };
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) }, { app: { clock } });
    h.model.failNext(1, 429, { retryAfter: 17 });
    h.say('hello');
    await settled(h, 1);

    expect(waits).toContain(17_000);
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(h.logs('provider_retry')[0]).toMatchObject({ status: 429, waitMs: 17_000 });
  });

  it('does not wait out a long Retry-After: the fallback answers at once', async () => {
    await h.start(({ model }) => withFallback(model.url));
    h.model.failNext(1, 429, { retryAfter: 3600, provider: 'openai' });
    h.model.enqueue({ text: 'from the fallback' });
    h.say('hello');
    await settled(h, 1);

    expect(h.model.chatRequests().map((r) => r.provider)).toEqual(['openai', 'groq']);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['from the fallback']);
  });

  it('does not retry a call that timed out: the fallback answers next', async () => {
    await h.start(({ model }) => ({ ...withFallback(model.url), LLM_TIMEOUT_MS: '300' }));
    h.model.injectFaults(1, { delayMs: 60_000 }, { provider: 'openai' });
    h.model.enqueue({ text: 'from the fallback' });
    h.say('hello');
    await settled(h, 1);

    expect(h.model.chatRequests().map((r) => r.provider)).toEqual(['openai', 'groq']);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['from the fallback']);
    expect(h.logs('provider_retry')).toHaveLength(0);
  });

  it('fails the turn after two retries when there is no fallback; the next message works', async () => {
    await startRetrying();
    h.model.failNext(3, 503);
    h.say('hello');
    await settled(h, 1);
    h.say('again');
    await settled(h, 2);

    expect(h.model.chatRequests()).toHaveLength(4);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([PROVIDER_UNAVAILABLE, 'echo: again']);
    expect(ledger().map((r) => r.ok)).toEqual([0, 0, 0, 1]);
  });

  it('/stop during a backoff wait ends the turn at once, with no further call', async () => {
    const slow: RetryPolicy = { retries: 2, delayMs: () => 60_000 };
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) }, { app: { modelRetry: slow } });
    h.model.failNext(1, 503);
    h.say('hello');
    await vi.waitFor(() => expect(h.logs('provider_retry')).toHaveLength(1));
    h.say('/stop');
    await settled(h, 2);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Stopped.']);
    expect(h.model.chatRequests()).toHaveLength(1);
    expect(ledger()).toHaveLength(1);
  });
});

describe('a broken answer', () => {
  it.each(providers)(
    '%s: a stream cut off before its finish and a garbled one are retried, booked as errors',
    async (provider) => {
      await startRetrying(provider);
      h.model.injectFaults(1, { truncateAfter: 0 });
      h.model.injectFaults(1, { malformed: 'body' });
      h.model.enqueue({ text: 'the whole answer' });
      h.say('hello');
      await settled(h, 1);

      expect(h.model.chatRequests().map((r) => r.provider)).toEqual([provider, provider, provider]);
      expect(h.tg.texts(ALLOWED_USER)).toEqual(['the whole answer']);
      const rows = ledger();
      expect(rows.map((r) => r.ok)).toEqual([0, 0, 1]);
      expect(rows[0]?.error).toMatch(/broke off/);
    },
  );

  it.each(providers)(
    '%s: a connection reset before the first word is retried, then failed over',
    async (provider) => {
      await startRetrying(provider, { LLM_FALLBACK: 'openai:gpt-4.1' });
      // The primary's three tries are all cut after the stream's head, before any text.
      h.model.injectFaults(3, { text: 'never shown', resetAfter: 0 }, { provider });
      h.model.enqueue({ text: 'from the fallback' });
      h.say('hello');
      await settled(h, 1);

      expect(h.model.chatRequests().map((r) => r.model)).toEqual([
        ...Array(3).fill(h.model.chatRequests()[0]?.model),
        'gpt-4.1',
      ]);
      expect(h.tg.texts(ALLOWED_USER)).toEqual(['from the fallback']);
      const rows = ledger();
      expect(rows.map((r) => r.ok)).toEqual([0, 0, 0, 1]);
      expect(rows[0]?.error).toMatch(/connection broke mid-answer/);
      expect(h.logs('provider_retry')).toHaveLength(2);
      expect(h.logs('provider_failover')).toHaveLength(1);
    },
  );

  it.each(providers)(
    '%s: a connection reset after text reached the user ends the turn with that text, marked as cut',
    async (provider) => {
      await startRetrying(provider);
      h.model.enqueue(
        { text: 'The first part of a long answer', chunks: 3, resetAfter: 1 },
        { text: 'next answer' },
      );
      h.say('tell me');
      await settled(h, 1);

      const partial = 'The first part';
      expect(h.tg.texts(ALLOWED_USER)).toEqual([`${partial}\n\n${CUT_NOTE}`]);
      // Not retried: a second try would show the answer twice.
      expect(h.model.chatRequests()).toHaveLength(1);
      expect(h.rows("SELECT content FROM messages WHERE role = 'assistant'")).toEqual([
        { content: `${partial}\n\n${CUT_NOTE}` },
      ]);
      expect(ledger().map((r) => r.ok)).toEqual([0]);
      expect(h.logs('answer_cut')).toHaveLength(1);

      h.say('and now?');
      await settled(h, 2);
      expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('next answer');
    },
  );

  it('a stream cut off mid-answer is never delivered: the fallback answers instead', async () => {
    await h.start(({ model }) => withFallback(model.url));
    h.model.enqueue(
      { text: 'this answer is cut off in the middle', chunks: 6, truncateAfter: 2 },
      { text: 'the whole answer' },
    );
    h.say('hello');
    await settled(h, 1);

    // Text had already streamed, so the primary is not asked again.
    expect(h.model.chatRequests().map((r) => r.provider)).toEqual(['openai', 'groq']);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['the whole answer']);
    expect(ledger().map((r) => [r.provider, r.ok])).toEqual([
      ['openai', 0],
      ['groq', 1],
    ]);
  });

  it('a stream with a line that is not JSON fails the turn when nothing else can answer', async () => {
    await startRetrying();
    h.model.injectFaults(3, { text: 'some words here', malformed: 'sse' });
    h.say('hello');
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([PROVIDER_UNAVAILABLE]);
    const rows = ledger();
    expect(rows.map((r) => r.ok)).toEqual([0, 0, 0]);
    expect(rows[0]?.error).toMatch(/malformed/);
  });
});

describe('the turn deadline (TURN_TIMEOUT_MS)', () => {
  const words = Array.from({ length: 200 }, (_, i) => `word${i + 1}`).join(' ');
  const note = '(I stopped here: the answer took longer than 1 second.)';

  it('ends a stream that never finishes with the text so far and a note', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), TURN_TIMEOUT_MS: '1000' });
    h.model.enqueue({ text: words, chunks: 200, chunkDelayMs: 50 }, { text: 'next answer' });
    h.say('tell me everything');
    const aborted = await h.model.waitForAbort();
    expect(lastUserText(aborted)).toBe('tell me everything');
    await settled(h, 1);

    const [answer] = h.tg.texts(ALLOWED_USER);
    expect(answer).toMatch(/^word1 word2 /);
    expect(answer?.endsWith(`\n\n${note}`)).toBe(true);
    expect(answer!.length).toBeLessThan(words.length);
    expect(h.rows("SELECT content FROM messages WHERE role = 'assistant'")).toEqual([
      { content: answer },
    ]);
    expect(ledger()).toEqual([{ provider: 'openai', ok: 0, error: 'deadline' }]);
    expect(h.logs('turn_deadline')).toHaveLength(1);

    h.say('and now?');
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([answer, 'next answer']);
  });

  it('does not count the time a question waits for the user', async () => {
    const clock = new FakeClock(Date.now());
    await h.start(
      { SATCHEL_PACKS: fixturePacks(['alpha']), TURN_TIMEOUT_MS: '600' },
      { app: { clock } },
    );
    h.model.enqueue(
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which?', options: ['A', 'B'] } }] },
      { text: 'you chose well' },
    );
    h.say('pick one');
    const question = await h.tg.waitForCall('sendMessage', (c) => c.params.text === 'Which?');
    // The user takes far longer than the whole turn may take; the turn still goes on. (Less
    // than the long poll's own deadline, which runs on the same clock.)
    clock.advance(20_000);
    const [, [second]] = question.params.reply_markup.inline_keyboard;
    h.tg.callback({ userId: ALLOWED_USER, data: second.callback_data });
    await settled(h, 2);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Which?', 'you chose well']);
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(ledger().map((r) => r.ok)).toEqual([1, 1]);
  });

  it('stops a /compact whose summary never finishes, and says so', async () => {
    const clock = new JumpClock();
    await h.start(
      { SATCHEL_PACKS: fixturePacks(['alpha']), TURN_TIMEOUT_MS: '1000' },
      { app: { clock } },
    );
    h.say('hello');
    await settled(h, 1);
    h.model.injectFaults(1, { trickle: true, chunkDelayMs: 50 });
    h.say('/compact');
    // The summary is being written: the deadline (on the app's clock) comes at once.
    await h.model.waitForRequest(2);
    clock.advance(1000);
    await settled(h, 2);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'echo: hello',
      'That took longer than 1 second, so I stopped.',
    ]);
    expect(ledger().map((r) => r.error)).toEqual([null, 'deadline']);
  });
});
