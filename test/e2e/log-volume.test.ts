import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../src/agent/retry.ts';
import { fixturePacks, harnessPerTest, type LogLine, settled } from '../support/harness.ts';

const h = harnessPerTest();
/** pino's level numbers: what LOG_LEVEL=info shows is 30 and above. */
const INFO = 30;
const noWait: RetryPolicy = { retries: 2, delayMs: () => 0 };
/** What start-up logs once (it may land after the first message). */
const STARTUP = new Set([
  'satchel_starting',
  'dashboard_started',
  'satchel_started',
  'tg_connected',
  'jobs_synced',
]);
const atInfo = (lines: LogLine[]) =>
  lines.filter((l) => l.level >= INFO && !STARTUP.has(String(l.event)));
const hasStack = (line: LogLine) => JSON.stringify(line).includes('\\n    at ');

describe('what the log shows at info', () => {
  it('ordinary turns write one line each: turn_completed', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const before = h.logs().length;
    for (let i = 1; i <= 10; i++) {
      h.say(`message ${i}`);
      await settled(h, i);
    }
    const lines = atInfo(h.logs().slice(before));
    // Measured: 10 turns, 10 lines at info, all turn_completed.
    expect(lines.map((l) => l.event)).toEqual(Array(10).fill('turn_completed'));
  });

  it('a retried 429 is one line, without a stack trace', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) }, { app: { modelRetry: noWait } });
    const before = h.logs().length;
    h.model.failNext(1, 429, { retryAfter: 0 });
    h.say('hello');
    await settled(h, 1);
    const lines = atInfo(h.logs().slice(before)).filter((l) => l.event !== 'turn_completed');
    expect(lines.map((l) => l.event)).toEqual(['provider_retry']);
    expect(lines[0]).toMatchObject({ status: 429, reason: expect.stringContaining('429') });
    expect(h.logs().some(hasStack)).toBe(false);
  });

  it('a refused provider key is one line, without a stack trace, naming what to check', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.requireKey('openai', 'sk-other');
    const before = h.logs().length;
    h.say('hello');
    await settled(h, 1);
    const lines = atInfo(h.logs().slice(before));
    expect(lines.map((l) => l.event)).toEqual(['provider_error']);
    expect((lines[0]?.err as { hint?: string } | undefined)?.hint).toMatch(/^check OPENAI_API_KEY/);
    expect(h.logs().some(hasStack)).toBe(false);
  });

  it('a network error retried, then a fallback failing too: a line each, no stack traces', async () => {
    await h.start(
      ({ model }) => ({
        SATCHEL_PACKS: fixturePacks(['alpha']),
        LLM_FALLBACK: 'groq:llama-3.3-70b-versatile',
        GROQ_BASE_URL: model.url,
      }),
      { app: { modelRetry: noWait } },
    );
    const before = h.logs().length;
    h.model.injectFaults(3, { drop: true }, { provider: 'openai' });
    h.model.failNext(1, 503, { provider: 'groq' });
    h.say('hello');
    await settled(h, 1);
    const lines = atInfo(h.logs().slice(before));
    expect(lines.map((l) => l.event)).toEqual([
      'provider_retry',
      'provider_retry',
      'provider_failover',
      'provider_error',
    ]);
    expect(h.logs().some(hasStack)).toBe(false);
  });
});
