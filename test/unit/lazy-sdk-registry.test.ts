import { describe, expect, it, vi } from 'vitest';
import { bundledCatalog } from '../../src/usage/catalog.ts';
import { loadedSdks, noteSdkLoad } from '../support/sdk-loads.ts';

vi.mock('@google/genai', (original) => noteSdkLoad('gemini', original));
vi.mock('groq-sdk', (original) => noteSdkLoad('groq', original));

describe('the provider registry', () => {
  it('builds every provider, speech to text and the doctor without loading an SDK', async () => {
    const { parseConfig } = await import('../../src/config/config.ts');
    const { createChatModel, createTranscriber } = await import('../../src/providers/index.ts');
    const { PROVIDER_NAMES } = await import('../../src/providers/registry.ts');
    const { createVisionModel } = await import('../../src/providers/vision.ts');
    await import('../../src/ops/doctor.ts');
    const config = parseConfig({
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      LLM_PROVIDER: 'gemini',
      GEMINI_API_KEY: 'gm',
      GROQ_API_KEY: 'gsk',
    });

    const models = PROVIDER_NAMES.map((provider) =>
      createChatModel(config, bundledCatalog(), provider),
    );
    expect(models.map((m) => m.info.provider)).toEqual(PROVIDER_NAMES);
    expect(createTranscriber(config)?.info.provider).toBe('groq');
    expect(createVisionModel(config, bundledCatalog())?.info.provider).toBe('gemini');
    expect(loadedSdks).toEqual({ gemini: false, groq: false });
  });

  it('transcribes on OpenAI without loading the Groq SDK', async () => {
    const { parseConfig } = await import('../../src/config/config.ts');
    const { createTranscriber } = await import('../../src/providers/index.ts');
    const config = parseConfig({
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      OPENAI_API_KEY: 'sk',
      GROQ_BASE_URL: 'http://127.0.0.1:9',
      STT_PROVIDER: 'openai',
    });
    expect(createTranscriber(config)?.info).toEqual({
      provider: 'openai',
      model: 'gpt-4o-mini-transcribe',
    });
    expect(loadedSdks).toEqual({ gemini: false, groq: false });
  });
});
