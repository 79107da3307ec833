import { createGroqChatModel } from '../../src/providers/groq.ts';
import { useFakeModel } from '../support/fake-model.ts';
import { openAiWire, providerContract } from './contract.ts';

providerContract(useFakeModel(), {
  provider: 'groq',
  path: /^\/openai\/v1\/chat\/completions$/,
  make: (url, timeoutMs) =>
    createGroqChatModel({ apiKey: 'test', baseUrl: url, model: 'llama-test', timeoutMs }),
  viaNodeHttp: true,
  keyVariable: 'GROQ_API_KEY',
  ...openAiWire,
});
