import { createOpenAiChatModel } from '../../src/providers/openai.ts';
import { useFakeModel } from '../support/fake-model.ts';
import { openAiWire, providerContract } from './contract.ts';

providerContract(useFakeModel(), {
  provider: 'openai',
  path: /^\/v1\/chat\/completions$/,
  make: (url, timeoutMs) =>
    createOpenAiChatModel({ apiKey: 'test', baseUrl: `${url}/v1`, model: 'gpt-test', timeoutMs }),
  viaNodeHttp: true,
  ...openAiWire,
});
