import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { ProviderError } from '../../src/core/errors.ts';
import { listModels } from '../../src/providers/probe.ts';
import type { Provider } from '../fakes/model-server.ts';
import { refusingRoot } from '../support/dead-hosts.ts';
import { useFakeModel } from '../support/fake-model.ts';

const fake = useFakeModel();

const KEYS = { openai: 'sk-good-openai', groq: 'gsk-good-groq', gemini: 'gm-good-gemini' };

const configFor = (url: string, keys: Partial<Record<Provider, string>> = KEYS) =>
  parseConfig({
    TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
    OPENAI_API_KEY: keys.openai,
    OPENAI_BASE_URL: `${url}/v1`,
    GROQ_API_KEY: keys.groq,
    GROQ_BASE_URL: url,
    GEMINI_API_KEY: keys.gemini,
    GEMINI_BASE_URL: url,
  });

const signal = () => new AbortController().signal;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

const VARIABLE = { openai: 'OPENAI_API_KEY', groq: 'GROQ_API_KEY', gemini: 'GEMINI_API_KEY' };
const PROVIDERS: Provider[] = ['openai', 'groq', 'gemini'];

describe('listModels (the doctor probe)', () => {
  it.each(PROVIDERS)('lists %s models with the key it was given', async (provider) => {
    fake.requireKey(provider, KEYS[provider]);
    fake.setModels(provider, ['model-a', 'model-b']);
    const names = await listModels(configFor(fake.url), provider, signal());
    expect(names).toEqual(['model-a', 'model-b']);
    const [request] = fake.requests({ provider, kind: 'models' });
    expect(request).toBeDefined();
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it.each(PROVIDERS)('a refused %s key names the variable to check', async (provider) => {
    fake.requireKey(provider, 'the-right-key');
    const error = await failure(listModels(configFor(fake.url), provider, signal()));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain(`check ${VARIABLE[provider]}`);
    expect((error as ProviderError).transient).toBe(false);
  });

  it.each(PROVIDERS)('an unreachable %s host is a transient ProviderError', async (provider) => {
    const error = await failure(listModels(configFor(await refusingRoot()), provider, signal()));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider, transient: true, status: undefined });
  });
});
