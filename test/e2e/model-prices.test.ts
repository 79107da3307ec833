/**
 * Cost on any model (SPEC §14), end to end through the real SDKs and the fakes: the owner's
 * catalog prices a model satchel does not bundle, USD caps refuse unpriced calls before they
 * are made, a router's reported cost is booked as is, and cached input tokens from all three
 * providers land in the ledger at the cached price and in GET /api/usage.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { type HarnessEnv, startWithUsageApi } from '../support/usage-api.ts';

const h = harnessPerTest();

interface LedgerRow {
  kind: string;
  provider: string;
  model: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  price_known: number;
}

const ledger = () =>
  h.rows<LedgerRow>(
    'SELECT kind, provider, model, input_tokens, cached_input_tokens, output_tokens, cost_usd, price_known FROM usage_events ORDER BY id',
  );

/** Starts satchel with the owner's catalog `yaml` in SATCHEL_HOME/models.yaml. */
async function withCatalog(yaml: string, env: HarnessEnv = {}) {
  const api = await startWithUsageApi(h, env);
  writeFileSync(path.join(h.home, 'models.yaml'), yaml);
  await h.restart();
  return api;
}

/** Starts satchel chatting with OpenAI's `model`, priced in the owner's catalog by `price`. */
function withPricedModel(model: string, price: string, env: HarnessEnv = {}) {
  return withCatalog(`openai:${model}: ${price}\n`, { LLM_MODEL: model, ...env });
}

describe("the owner's catalog", () => {
  it('prices a model satchel does not bundle, and its calls count against the USD cap', async () => {
    await withPricedModel('gpt-5-mini', '{ input: 0.25, cached_input: 0.025, output: 2 }', {
      QUOTA_DAILY_USD: '0.0001',
    });
    h.model.enqueue({ text: 'first', usage: { input: 200, cached: 100, output: 40 } });
    h.say('one');
    await settled(h, 1);
    h.say('two');
    await settled(h, 2);

    // 100 fresh × 0.25 + 100 cached × 0.025 + 40 × 2, per million = $0.0001075: over the cap.
    expect(ledger()).toEqual([
      expect.objectContaining({
        model: 'gpt-5-mini',
        cached_input_tokens: 100,
        cost_usd: expect.closeTo(0.0001075, 12),
        price_known: 1,
      }),
    ]);
    expect(h.model.chatRequests()).toHaveLength(1);
    expect(h.tg.texts(ALLOWED_USER)[1]).toMatch(/daily spend cap is reached/);
  });
});

describe('USD caps and unpriced models', () => {
  it('refuses a chat call on an unpriced model before it is made, naming the model and the file', async () => {
    await h.start({ LLM_MODEL: 'my-local-llama', QUOTA_DAILY_USD: '5' });
    h.say('hello');
    await settled(h, 1);

    expect(h.model.chatRequests()).toEqual([]);
    expect(ledger()).toEqual([]);
    const file = path.join(h.home, 'models.yaml');
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      `openai:my-local-llama has no price, so it cannot run under the daily spend cap. Add its price to ${file} (or set UNKNOWN_PRICE=allow) and restart.`,
    ]);
    expect(h.logs('quota_unpriced')).toEqual([
      expect.objectContaining({ provider: 'openai', model: 'my-local-llama', kind: 'llm' }),
    ]);
  });

  it("refuses it under a pack's daily_usd too, and lets it through with UNKNOWN_PRICE=allow", async () => {
    await h.start({
      LLM_MODEL: 'my-local-llama',
      SATCHEL_PACKS: fixturePacks(['alpha'], 'quota:\n  daily_usd: 1\n'),
    });
    h.say('hello');
    await settled(h, 1);
    expect(h.model.chatRequests()).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)[0]).toContain("alpha pack's daily spend cap");

    h.env.UNKNOWN_PRICE = 'allow';
    await h.restart();
    h.say('again');
    await settled(h, 2);
    expect(h.model.chatRequests()).toHaveLength(1);
    expect(ledger()).toEqual([
      expect.objectContaining({ model: 'my-local-llama', cost_usd: null, price_known: 0 }),
    ]);
  });

  it('refuses a voice note on an unpriced speech-to-text model without downloading it', async () => {
    await h.start(({ model }) => ({
      GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
      GROQ_BASE_URL: model.url,
      STT_MODEL: 'whisper-next',
      QUOTA_DAILY_USD: '5',
    }));
    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_1.oga');
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await settled(h, 1);
    expect(h.model.requests({ kind: 'transcription' })).toEqual([]);
    expect(h.tg.downloads()).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)[0]).toContain('groq:whisper-next has no price');
    expect(h.logs('quota_unpriced')).toEqual([expect.objectContaining({ kind: 'stt' })]);
  });

  it('refuses a photo description on an unpriced vision model, and asks no model', async () => {
    await withPricedModel('text-only', '{ input: 0.1, output: 0.2 }', {
      VISION_MODEL: 'vision-x',
      QUOTA_DAILY_USD: '5',
    });
    h.tg.addFile('p1', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'photos/p1.jpg');
    h.tg.photo({ userId: ALLOWED_USER, fileIds: ['p1'], caption: 'what is it?' });
    await settled(h, 1);
    expect(h.model.chatRequests()).toEqual([]);
    expect(ledger()).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)[0]).toContain('openai:vision-x has no price');
    expect(h.logs('quota_unpriced')).toEqual([
      expect.objectContaining({ kind: 'vision', model: 'vision-x' }),
    ]);
  });

  it("books a router's reported usage.cost, priced or not", async () => {
    await withPricedModel('router/auto', '{ input: 1, output: 1 }', { QUOTA_DAILY_USD: '5' });
    h.model.enqueue({ text: 'routed', usage: { input: 1000, output: 100, cost: 0.0123 } });
    h.say('hi');
    await settled(h, 1);
    expect(ledger()).toEqual([
      expect.objectContaining({ model: 'router/auto', cost_usd: 0.0123, price_known: 1 }),
    ]);
  });
});

describe('cached input tokens', () => {
  const providers = {
    openai: { env: () => ({}), model: 'gpt-4.1-mini', price: [0.4, 0.1, 1.6] },
    gemini: {
      env: (url: string) => ({
        LLM_PROVIDER: 'gemini',
        GEMINI_BASE_URL: url,
        GEMINI_API_KEY: 'g-test-key-123',
        LLM_MODEL: 'gemini-2.5-flash',
      }),
      model: 'gemini-2.5-flash',
      price: [0.3, 0.03, 2.5],
    },
    groq: {
      env: (url: string) => ({
        LLM_PROVIDER: 'groq',
        GROQ_BASE_URL: url,
        GROQ_API_KEY: 'gsk-test-key-123',
        LLM_MODEL: 'llama-3.3-70b-versatile',
      }),
      model: 'llama-3.3-70b-versatile',
      price: [0.59, 0.295, 0.79],
    },
  } as const;

  it.each(Object.keys(providers) as (keyof typeof providers)[])(
    '%s: are in the ledger at the cached price and in /api/usage',
    async (provider) => {
      const spec = providers[provider];
      const { usage } = await withCatalog('', spec.env);
      h.model.enqueue({ text: 'cached', usage: { input: 10_000, cached: 8_000, output: 500 } });
      h.say('a long conversation');
      await settled(h, 1);

      const [input, cached, output] = spec.price;
      const cost = (2_000 * input + 8_000 * cached + 500 * output) / 1e6;
      expect(ledger()).toEqual([
        {
          kind: 'llm',
          provider,
          model: spec.model,
          input_tokens: 10_000,
          cached_input_tokens: 8_000,
          output_tokens: 500,
          cost_usd: expect.closeTo(cost, 12),
          price_known: 1,
        },
      ]);
      const body = await usage();
      const saved = (8_000 * (input - cached)) / 1e6;
      expect(body.today).toMatchObject({
        input_tokens: 10_000,
        cached_input_tokens: 8_000,
        cache_saved_usd: expect.closeTo(saved, 9),
      });
      expect(body.by_model).toEqual([
        expect.objectContaining({
          provider,
          model: spec.model,
          cached_input_tokens: 8_000,
          cost_usd: expect.closeTo(cost, 9),
          cache_saved_usd: expect.closeTo(saved, 9),
        }),
      ]);
    },
  );
});
