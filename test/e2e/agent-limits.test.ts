import { describe, expect, it } from 'vitest';
import { conversation, systemText } from '../fakes/model-server.ts';
import { compactingTurns, isFlush, isSummary } from '../support/compaction.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
/** A `[Sent: …]` line as it reads inside a JSON string. */
const SENT_JSON = /\[Sent: [^\]]+\]\\n/g;

describe('the quota gate', () => {
  it.each([
    [
      'the daily token cap',
      { QUOTA_DAILY_TOKENS: '100' },
      '',
      /daily token cap is reached: 110 tokens of 100 tokens used/,
    ],
    [
      'the daily spend cap',
      { QUOTA_DAILY_USD: '0.00001' },
      '',
      /daily spend cap is reached: \$0\.0000\d+ of \$0\.0000\d+ used/,
    ],
    [
      'a pack cap',
      {},
      'quota:\n  daily_tokens: 50\n',
      /alpha pack's daily token cap is reached: 110 tokens of 50 tokens used/,
    ],
  ])(
    'stops calls at %s and says which, how much and when it resets',
    async (_name, env, manifest, message) => {
      await h.start({ SATCHEL_PACKS: fixturePacks(['alpha'], manifest), ...env });
      h.model.enqueue({ text: 'first', usage: { input: 80, output: 30 } });
      h.say('one');
      await settled(h, 1);
      h.say('two');
      await settled(h, 2);

      expect(h.model.chatRequests()).toHaveLength(1);
      const [, refusal] = h.tg.texts(ALLOWED_USER);
      expect(refusal).toMatch(message);
      expect(refusal).toMatch(/It resets at midnight \(UTC\), in \d+ (h|min)/);
      expect(h.logs('quota_exceeded')).toHaveLength(1);
      // The refused message is kept.
      expect(h.rows("SELECT content FROM messages WHERE role = 'user' ORDER BY id")).toEqual([
        { content: 'one' },
        { content: 'two' },
      ]);
    },
  );

  it('/usage shows today, the pack and the session against the caps', async () => {
    await h.start({
      SATCHEL_PACKS: fixturePacks(['alpha'], 'quota:\n  daily_tokens: 5000\n'),
      QUOTA_DAILY_TOKENS: '1000',
      QUOTA_DAILY_USD: '2',
    });
    h.model.enqueue({ text: 'first', usage: { input: 80, output: 30 } });
    h.say('one');
    await settled(h, 1);
    h.say('/usage');
    await settled(h, 2);
    const report = h.tg.texts(ALLOWED_USER)[1]!;
    expect(report).toContain('1 model call(s)');
    expect(report).toContain('• tokens: 110 of 1,000 (890 left)');
    expect(report).toMatch(/• spend: \$0\.000080 — cap \$2\.00, \$2\.00 left/);
    expect(report).toContain('Alpha Garden today:\n• tokens: 110 of 5,000 (4,890 left)');
    expect(report).toContain('This session:\n• tokens: 110 of 500,000 (499,890 left)');
  });

  it('caps a session and points to /compact', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), QUOTA_SESSION_TOKENS: '100' });
    h.model.enqueue({ text: 'first', usage: { input: 80, output: 30 } });
    h.say('one');
    await settled(h, 1);
    h.say('two');
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER)[1]).toContain('session token cap is reached');
    expect(h.tg.texts(ALLOWED_USER)[1]).toContain('/compact');

    // /compact still works on the full session, and the fresh session can be used again.
    h.model.enqueue({ text: '- user said one and two', usage: { input: 40, output: 10 } });
    h.say('/compact');
    await settled(h, 3);
    h.say('three');
    await settled(h, 4);
    const texts = h.tg.texts(ALLOWED_USER);
    expect(texts[2]).toMatch(/^Compacted \d+ messages into a summary/);
    expect(texts[3]).toBe('echo: three');
  });
});

describe('providers', () => {
  const providerEnv = {
    openai: (url: string) => ({ LLM_PROVIDER: 'openai', OPENAI_BASE_URL: `${url}/v1` }),
    gemini: (url: string) => ({
      LLM_PROVIDER: 'gemini',
      GEMINI_BASE_URL: url,
      GEMINI_API_KEY: 'g-test-key-123',
      LLM_MODEL: 'gemini-2.5-flash',
    }),
    groq: (url: string) => ({
      LLM_PROVIDER: 'groq',
      GROQ_BASE_URL: url,
      GROQ_API_KEY: 'gsk-test-key-123',
      LLM_MODEL: 'llama-3.3-70b-versatile',
    }),
  };

  it.each(Object.keys(providerEnv) as (keyof typeof providerEnv)[])(
    '%s: a streamed turn with text and one tool call',
    async (provider) => {
      await h.start(({ model }) => ({
        SATCHEL_PACKS: fixturePacks(['alpha']),
        ...providerEnv[provider](model.url),
      }));
      h.model.enqueue(
        {
          text: 'Let me look. ',
          toolCalls: [{ name: 'memory', arguments: { action: 'read', file: 'USER.md' } }],
        },
        { text: 'Your notes say **ALPHA**.', chunks: 4 },
      );
      h.say('what do you know about me?');
      await settled(h, 1);

      const requests = h.model.chatRequests();
      expect(requests.map((r) => [r.provider, r.stream])).toEqual([
        [provider, true],
        [provider, true],
      ]);
      expect(JSON.stringify(requests[1]!.body)).toContain('ALPHA-USER-NOTE');
      expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Your notes say <b>ALPHA</b>.');
      const usage = h.rows<{ provider: string; ok: number }>(
        'SELECT provider, ok FROM usage_events',
      );
      expect(usage).toEqual([
        { provider, ok: 1 },
        { provider, ok: 1 },
      ]);
    },
  );
});

describe('history', () => {
  it('compacts a long session once and reuses the summary', async () => {
    await compactingTurns(h, {
      summary: '- SUMMARY-OF-EARLIER: user talked about ferns',
      flush: 'NOTHING',
      answer: `ok ${'x'.repeat(300)}`,
    });

    const requests = h.model.chatRequests();
    const summaries = requests.filter(isSummary);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const [session] = h.rows<{ summary: string; summary_upto: number }>(
      'SELECT summary, summary_upto FROM sessions',
    );
    expect(session?.summary).toContain('SUMMARY-OF-EARLIER');
    const after = requests
      .slice(requests.indexOf(summaries[0]!) + 1)
      .filter((r) => !isSummary(r) && !isFlush(r));
    expect(after.length).toBeGreaterThan(0);
    for (const request of after) {
      expect(systemText(request)).toContain('SUMMARY-OF-EARLIER');
      // What was kept, without the time line each turn carries (nor the request's clock line).
      const kept = JSON.stringify(conversation(request).slice(1)).replaceAll(SENT_JSON, '');
      const size = kept.length / 4;
      expect(size).toBeLessThan(400 * 1.5);
    }
    // Not summarized again on every turn: far fewer summaries than turns.
    expect(summaries.length).toBeLessThan(4);
  });

  it('/compact summarizes on demand and continues in a fresh session seeded with it', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.say('my fern is called Fred');
    await settled(h, 1);
    // The memory flush first (nothing to keep), then the summary.
    h.model.enqueue({ text: 'NOTHING' }, { text: '- The fern is called Fred' });
    h.say('/compact');
    await settled(h, 2);
    h.say('what is my fern called?');
    await settled(h, 3);

    expect(h.tg.texts(ALLOWED_USER)[1]).toBe(
      'Compacted 2 messages into a summary. The conversation continues in a fresh session.',
    );
    const last = h.model.chatRequests().at(-1)!;
    expect(systemText(last)).toContain('The fern is called Fred');
    expect(last.body.messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(1);
    expect(h.rows('SELECT summary FROM sessions WHERE closed_at IS NULL')).toEqual([
      { summary: '- The fern is called Fred' },
    ]);
  });
});
