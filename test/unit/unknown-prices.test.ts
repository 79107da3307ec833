import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { modelsInUse } from '../../src/providers/models-in-use.ts';
import { bundledCatalog } from '../../src/usage/catalog.ts';
import { unpricedModels, warnUnknownPrices } from '../../src/usage/unknown-prices.ts';

const catalog = bundledCatalog('/srv/satchel/models.yaml');

const base = { TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', OPENAI_API_KEY: 'sk-test' };
/** The configuration of a bot with an OpenAI key, and `env` on top. */
const configWith = (env: Record<string, string> = {}) => parseConfig({ ...base, ...env });

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'info',
    secrets: [],
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { log, lines };
}

describe('models in use', () => {
  it('are the chat model, the fallback, Whisper and the packs’ models', () => {
    const config = configWith({
      LLM_MODEL: 'gpt-4.1-mini',
      LLM_FALLBACK: 'groq:llama-3.3-70b-versatile',
      GROQ_API_KEY: 'gsk-test',
    });
    expect(modelsInUse(config, catalog, [{ pack: 'vocab', model: 'gpt-4o' }])).toEqual([
      { provider: 'openai', model: 'gpt-4.1-mini', use: 'chat' },
      { provider: 'groq', model: 'llama-3.3-70b-versatile', use: 'fallback' },
      // The fallback cannot see images, so photos are described by the vision model.
      { provider: 'openai', model: 'gpt-4.1-mini', use: 'vision' },
      { provider: 'groq', model: 'whisper-large-v3-turbo', use: 'stt' },
      { provider: 'openai', model: 'gpt-4o', use: 'pack vocab' },
    ]);
  });

  it('leave out a pack model whose provider has no key (the chat model answers instead)', () => {
    const config = configWith();
    expect(
      modelsInUse(config, catalog, [{ pack: 'journal', model: 'gemini:gemini-2.5-pro' }]),
    ).toEqual([
      { provider: 'openai', model: 'gpt-4.1-mini', use: 'chat' },
      // OpenAI's own API transcribes voice by default (STT_PROVIDER).
      { provider: 'openai', model: 'gpt-4o-mini-transcribe', use: 'stt' },
    ]);
  });
});

describe('the unknown-price warning', () => {
  it('names each unpriced model once, with all its uses', () => {
    const config = configWith({
      LLM_MODEL: 'my-local-llama',
      VISION_MODEL: 'gpt-4.1-mini',
    });
    const unpriced = unpricedModels(catalog, [
      ...modelsInUse(config, catalog, [{ pack: 'journal', model: 'my-local-llama' }]),
    ]);
    expect(unpriced).toEqual([
      { provider: 'openai', model: 'my-local-llama', uses: ['chat', 'pack journal'] },
    ]);
  });

  it('is logged once at start as model_price_unknown, saying what it means for the caps', () => {
    const { log, lines } = capture();
    const config = configWith({
      LLM_MODEL: 'my-local-llama',
      GROQ_API_KEY: 'gsk-test',
      STT_MODEL: 'distil-whisper-next',
      VOICE_REPLY: 'inbound',
      TTS_MODEL: 'openai:my-tts',
    });
    warnUnknownPrices(log, catalog, modelsInUse(config, catalog));
    const warnings = lines.filter((l) => l.event === 'model_price_unknown');
    expect(warnings.map((w) => [w.provider, w.model, w.uses])).toEqual([
      ['openai', 'my-local-llama', ['chat']],
      ['groq', 'distil-whisper-next', ['stt']],
      ['openai', 'my-tts', ['tts']],
    ]);
    expect(warnings[0]?.level).toBe(40);
    expect(warnings[0]?.msg).toBe(
      "no known price for openai:my-local-llama (chat): under a USD cap (QUOTA_DAILY_USD or a pack's daily_usd) its calls are refused. Add its price to /srv/satchel/models.yaml.",
    );
  });

  it('says nothing when every model has a price', () => {
    const { log, lines } = capture();
    expect(warnUnknownPrices(log, catalog, modelsInUse(configWith(), catalog))).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('prices Whisper per audio hour, so a chat-priced model used for speech is unpriced', () => {
    expect(
      unpricedModels(catalog, [
        { provider: 'groq', model: 'whisper-large-v3-turbo', use: 'stt' },
        { provider: 'groq', model: 'llama-3.3-70b-versatile', use: 'stt' },
      ]),
    ).toEqual([{ provider: 'groq', model: 'llama-3.3-70b-versatile', uses: ['stt'] }]);
  });
});
