import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { createChatModel } from '../../src/providers/index.ts';
import { modelAcceptsImages, modelEntry } from '../../src/usage/models.ts';
import { audioCost, tokenCost } from '../../src/usage/prices.ts';

const config = parseConfig({
  TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
  OPENAI_API_KEY: 'sk-test',
  GROQ_API_KEY: 'gsk-test',
  GEMINI_API_KEY: 'gm-test',
});

describe('model catalog', () => {
  it.each([
    ['openai', 'gpt-4.1'],
    ['openai', 'gpt-4.1-mini'],
    ['openai', 'gpt-4.1-nano'],
    ['openai', 'gpt-4o'],
    ['openai', 'gpt-4o-mini'],
    ['gemini', 'gemini-2.5-flash'],
    ['gemini', 'gemini-2.5-flash-lite'],
    ['gemini', 'gemini-2.5-pro'],
    ['groq', 'meta-llama/llama-4-scout-17b-16e-instruct'],
    ['groq', 'meta-llama/llama-4-maverick-17b-128e-instruct'],
  ])('knows %s:%s takes images', (provider, model) => {
    expect(modelAcceptsImages(provider, model)).toBe(true);
  });

  it.each([
    ['groq', 'llama-3.3-70b-versatile'],
    ['groq', 'llama-3.1-8b-instant'],
    ['groq', 'whisper-large-v3-turbo'],
    ['gemini', 'gemini-test'],
    ['openai', 'my-local-model'],
    // The catalog is keyed by provider: a model name under another provider is not the same.
    ['groq', 'gpt-4o'],
  ])('takes %s:%s as text-only', (provider, model) => {
    expect(modelAcceptsImages(provider, model)).toBe(false);
  });

  it('prices the Llama 4 models on Groq per million tokens', () => {
    const million = { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 1_000_000 };
    expect(tokenCost('groq', 'meta-llama/llama-4-scout-17b-16e-instruct', million)).toBeCloseTo(
      0.45,
    );
    expect(tokenCost('groq', 'meta-llama/llama-4-maverick-17b-128e-instruct', million)).toBeCloseTo(
      0.8,
    );
  });

  it('keeps chat and audio prices apart, and an unknown model unpriced', () => {
    const usage = { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100 };
    // 600 fresh × 0.4 + 400 cached × 0.1 + 100 × 1.6, per million
    expect(tokenCost('openai', 'gpt-4.1-mini', usage)).toBeCloseTo(0.00044);
    expect(tokenCost('openai', 'unknown-model', usage)).toBeNull();
    expect(tokenCost('groq', 'whisper-large-v3-turbo', usage)).toBeNull();
    expect(audioCost('groq', 'whisper-large-v3-turbo', 3600)).toBeCloseTo(0.04);
    expect(audioCost('openai', 'gpt-4.1-mini', 60)).toBeNull();
    expect(modelEntry('groq', 'no-such-model')).toBeUndefined();
  });
});

describe('createChatModel', () => {
  it.each([
    ['openai', undefined, 'gpt-4.1-mini', true],
    ['gemini', undefined, 'gemini-2.5-flash', true],
    ['groq', undefined, 'llama-3.3-70b-versatile', false],
    ['groq', 'meta-llama/llama-4-scout-17b-16e-instruct', undefined, true],
    ['gemini', 'gemini-test', undefined, false],
    ['openai', 'my-local-model', undefined, false],
  ] as const)('%s %s: images from the catalog', (provider, model, defaultModel, images) => {
    const chat = createChatModel(config, provider, model);
    expect(chat.info).toEqual({
      provider,
      model: model ?? defaultModel,
      acceptsImages: images,
    });
  });
});
