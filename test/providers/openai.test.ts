import { describe, expect, it } from 'vitest';
import type { ProviderError } from '../../src/core/errors.ts';
import { createOpenAiChatModel } from '../../src/providers/openai.ts';
import { useFakeModel } from '../support/fake-model.ts';
import { ask, failure, openAiWire, providerContract, signal } from './contract.ts';

const fake = useFakeModel();
const openai = (url: string, timeoutMs = 5000) =>
  createOpenAiChatModel({ apiKey: 'test', baseUrl: `${url}/v1`, model: 'gpt-test', timeoutMs });

providerContract(fake, {
  provider: 'openai',
  path: /^\/v1\/chat\/completions$/,
  make: openai,
  viaNodeHttp: true,
  keyVariable: 'OPENAI_API_KEY',
  ...openAiWire,
});

describe('openai: what a failed call tells the owner and the user', () => {
  const failed = async (status: number) => {
    fake.enqueue({ status });
    return (await failure(
      openai(fake.url).complete(ask('hi'), { signal: signal() }),
    )) as ProviderError;
  };

  it('a 403 says the key may not use the model', async () => {
    const error = await failed(403);
    expect(error.status).toBe(403);
    expect(error.message).toContain('check that the key in OPENAI_API_KEY may use this model');
  });

  it('other failures keep the generic apology', async () => {
    const error = await failed(400);
    expect(error.status).toBe(400);
    expect(error.userMessage).toBe('Sorry, something went wrong with that message.');
  });
});
