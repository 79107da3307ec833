import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { createChatModel } from '../../src/providers/index.ts';
import { PROVIDERS } from '../../src/providers/registry.ts';
import { bundledCatalog, createModelCatalog } from '../../src/usage/catalog.ts';
import { loadModelCatalog, parseOwnerCatalog } from '../../src/usage/catalog-file.ts';
import { audioCost, cacheSaving, tokenCost, ttsCost } from '../../src/usage/prices.ts';

const config = parseConfig({
  TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
  OPENAI_API_KEY: 'sk-test',
  GROQ_API_KEY: 'gsk-test',
  GEMINI_API_KEY: 'gm-test',
});

const owner = (text: string) => createModelCatalog(parseOwnerCatalog('/srv/models.yaml', text));

/** The ConfigError message `text` gets as an owner catalog. */
function problems(text: string): string {
  try {
    parseOwnerCatalog('/srv/models.yaml', text);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the catalog was accepted');
}

describe('the bundled catalog', () => {
  const catalog = bundledCatalog();

  it('prices every model the defaults use and every model SPEC §14 names', () => {
    const defaults = PROVIDERS.flatMap((p) =>
      Object.values(p.defaults).map((model) => `${p.name}:${model}`),
    );
    const named = [
      'openai:gpt-4o',
      'openai:gpt-4o-mini',
      'openai:gpt-4.1',
      'openai:gpt-4.1-mini',
      'openai:gpt-4.1-nano',
      'openai:o4-mini',
      'openai:gpt-4o-mini-transcribe',
      'openai:gpt-4o-mini-tts',
      // The other models STT_MODEL names for OpenAI (SPEC §1).
      'openai:gpt-4o-transcribe',
      'openai:whisper-1',
      'gemini:gemini-2.5-pro',
      'gemini:gemini-2.5-flash',
      'gemini:gemini-2.5-flash-lite',
      'gemini:gemini-2.0-flash',
      'groq:llama-3.3-70b-versatile',
      'groq:llama-3.1-8b-instant',
      'groq:meta-llama/llama-4-scout-17b-16e-instruct',
      'groq:meta-llama/llama-4-maverick-17b-128e-instruct',
      'groq:whisper-large-v3',
      'groq:whisper-large-v3-turbo',
      // The search providers, priced per call (SPEC §14).
      'brave:search',
      'tavily:search',
      'searxng:search',
    ];
    const keys = catalog.entries().map((e) => `${e.provider}:${e.model}`);
    expect(new Set(keys)).toEqual(new Set([...defaults, ...named]));
    for (const e of catalog.entries()) {
      expect(e.source).toBe('bundled');
      expect(
        e.entry.tokens ?? e.entry.audioPerHour ?? e.entry.ttsPerMillionChars ?? e.entry.perCall,
      ).toBeDefined();
    }
  });

  it('knows which default models see images, and takes an unknown one as text-only', () => {
    expect(catalog.acceptsImages('openai', 'gpt-4.1-mini')).toBe(true);
    expect(catalog.acceptsImages('gemini', 'gemini-2.5-flash')).toBe(true);
    expect(catalog.acceptsImages('groq', 'meta-llama/llama-4-scout-17b-16e-instruct')).toBe(true);
    expect(catalog.acceptsImages('groq', 'llama-3.3-70b-versatile')).toBe(false);
    expect(catalog.acceptsImages('openai', 'my-local-model')).toBe(false);
    // Keyed by provider: a model name under another provider is not the same model.
    expect(catalog.acceptsImages('groq', 'gpt-4.1-mini')).toBe(false);
  });

  it('prices the cached part of a prompt at cached_input, audio per hour', () => {
    const usage = { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100 };
    const mini = catalog.lookup('openai', 'gpt-4.1-mini');
    // 600 fresh × 0.4 + 400 cached × 0.1 + 100 × 1.6, per million
    expect(tokenCost(mini, usage)).toBeCloseTo(0.00044, 10);
    expect(cacheSaving(mini, 400)).toBeCloseTo((400 * 0.3) / 1e6, 12);
    expect(tokenCost(catalog.lookup('openai', 'unknown-model'), usage)).toBeNull();
    const whisper = catalog.lookup('groq', 'whisper-large-v3-turbo');
    expect(tokenCost(whisper, usage)).toBeNull();
    expect(audioCost(whisper, 3600)).toBeCloseTo(0.04);
    expect(catalog.priced('groq', 'whisper-large-v3-turbo', 'stt')).toBe(true);
    expect(catalog.priced('groq', 'whisper-large-v3-turbo', 'llm')).toBe(false);
    expect(catalog.chatModels().map((e) => e.model)).not.toContain('whisper-large-v3-turbo');
  });

  it('prices speech per million characters, and does not offer a speech model for chat', () => {
    const tts = catalog.lookup('openai', 'gpt-4o-mini-tts');
    expect(ttsCost(tts, 2000)).toBeCloseTo(0.03, 10);
    expect(tokenCost(tts, { inputTokens: 10, cachedInputTokens: 0, outputTokens: 10 })).toBeNull();
    expect(ttsCost(catalog.lookup('openai', 'gpt-4.1-mini'), 2000)).toBeNull();
    expect(catalog.priced('openai', 'gpt-4o-mini-tts', 'tts')).toBe(true);
    expect(catalog.priced('openai', 'gpt-4o-mini-tts', 'llm')).toBe(false);
    expect(catalog.chatModels().map((e) => e.model)).not.toContain('gpt-4o-mini-tts');
  });
});

describe("the owner's catalog", () => {
  it('adds models and overrides bundled fields, saying where each entry came from', () => {
    const catalog = owner(`
openai:gpt-5-mini:
  input: 0.25
  cached_input: 0.025
  output: 2
  images: true
  context: 400000
openai:gpt-4.1-mini: { input: 0.5, output: 2 }
openai:qwen3:32b: { input: 0.1, output: 0.3 }
brave:search: { per_call: 0.005 }
openai:tts-1: { tts_per_million_chars: 15 }
`);
    expect(catalog.lookup('openai', 'gpt-5-mini')).toEqual({
      images: true,
      context: 400_000,
      tokens: { input: 0.25, cachedInput: 0.025, output: 2 },
    });
    // An override keeps what it does not name (images, context); no cached price: input's.
    expect(catalog.lookup('openai', 'gpt-4.1-mini')).toMatchObject({
      images: true,
      context: 1_047_576,
      tokens: { input: 0.5, cachedInput: 0.5, output: 2 },
    });
    expect(catalog.lookup('openai', 'qwen3:32b')?.tokens?.output).toBe(0.3);
    expect(catalog.priced('brave', 'search', 'search')).toBe(true);
    expect(catalog.lookup('openai', 'tts-1')).toEqual({ images: false, ttsPerMillionChars: 15 });
    expect(catalog.priced('openai', 'tts-1', 'tts')).toBe(true);
    const sources = Object.fromEntries(
      catalog.entries().map((e) => [`${e.provider}:${e.model}`, e.source]),
    );
    expect(sources).toMatchObject({
      'openai:gpt-5-mini': '/srv/models.yaml',
      'openai:gpt-4.1-mini': '/srv/models.yaml',
      'gemini:gemini-2.5-flash': 'bundled',
    });
    expect(catalog.chatModels().map((e) => `${e.provider}:${e.model}`)).toContain(
      'openai:gpt-5-mini',
    );
    expect(catalog.chatModels().map((e) => e.provider)).not.toContain('brave');
    expect(catalog.chatModels().map((e) => e.model)).not.toContain('tts-1');
  });

  it('stops start-up naming the file, the line and the field of each problem', () => {
    const message = problems(`openai:gpt-5-mini:
  input: -1
  output: 2
  imgs: true
gemini:gemini-3: { input: 1 }
nonsense: { input: 1, output: 1 }
groq:whisper-x: { audio_per_hour: "cheap" }
`);
    expect(message.split('\n')).toEqual([
      'Invalid model catalog:',
      '- /srv/models.yaml line 2: openai:gpt-5-mini.input must be 0 or more',
      '- /srv/models.yaml line 4: openai:gpt-5-mini.imgs is not a field (input, cached_input, output, audio_per_hour, per_call, tts_per_million_chars, images, context)',
      '- /srv/models.yaml line 5: gemini:gemini-3.output is required with a token price (input and output, per million tokens)',
      '- /srv/models.yaml line 6: nonsense: the key must be "provider:model"',
      '- /srv/models.yaml line 7: groq:whisper-x.audio_per_hour must be a number (USD)',
    ]);
    expect(problems('openai:gpt-5: [1, 2\n')).toMatch(
      /^Invalid model catalog:\n- \/srv\/models.yaml line \d+: /,
    );
  });

  it('is read from SATCHEL_HOME/models.yaml by default, and must exist when SATCHEL_MODELS names it', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'satchel-models-'));
    const env = {
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      OPENAI_API_KEY: 'sk',
      SATCHEL_HOME: home,
    };
    expect(loadModelCatalog(parseConfig(env)).lookup('openai', 'gpt-5')).toBeUndefined();
    writeFileSync(path.join(home, 'models.yaml'), 'openai:gpt-5: { input: 1.25, output: 10 }\n');
    const catalog = loadModelCatalog(parseConfig(env));
    expect(catalog.file).toBe(path.join(home, 'models.yaml'));
    expect(catalog.priced('openai', 'gpt-5', 'llm')).toBe(true);
    const missing = path.join(home, 'elsewhere.yaml');
    expect(() => loadModelCatalog(parseConfig({ ...env, SATCHEL_MODELS: missing }))).toThrow(
      `SATCHEL_MODELS names ${missing}, which does not exist`,
    );
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
    const chat = createChatModel(config, bundledCatalog(), provider, model);
    expect(chat.info).toEqual({ provider, model: model ?? defaultModel, acceptsImages: images });
  });

  it("takes images for a model the owner's catalog says sees them", () => {
    const catalog = owner('openai:my-local-model: { images: true }\n');
    const chat = createChatModel(config, catalog, 'openai', 'my-local-model');
    expect(chat.info.acceptsImages).toBe(true);
    // Seeing images is not a price.
    expect(catalog.priced('openai', 'my-local-model', 'llm')).toBe(false);
  });
});
