import { describe, expect, it, vi } from 'vitest';
import { useFakeModel } from '../support/fake-model.ts';
import { loadedSdks, noteSdkLoad } from '../support/sdk-loads.ts';

vi.mock('@google/genai', (original) => noteSdkLoad('gemini', original));
vi.mock('groq-sdk', (original) => noteSdkLoad('groq', original));

const fake = useFakeModel();

describe('the Gemini and Groq SDKs', () => {
  it('are loaded by their first call, not by a bot that does not call them', async () => {
    const { createGeminiChatModel } = await import('../../src/providers/gemini.ts');
    const { createGroqChatModel } = await import('../../src/providers/groq.ts');
    const { createOpenAiChatModel } = await import('../../src/providers/openai.ts');
    const options = { baseUrl: fake.url, model: 'm', timeoutMs: 5000 };
    const openai = createOpenAiChatModel({ ...options, baseUrl: `${fake.url}/v1` });
    const gemini = createGeminiChatModel(options);
    const groq = createGroqChatModel(options);
    const request = { system: 'Be brief.', messages: [{ role: 'user' as const, content: 'hi' }] };
    const signal = new AbortController().signal;

    await openai.complete(request, { signal });
    expect(loadedSdks).toEqual({ gemini: false, groq: false });

    fake.enqueue({ text: 'Hello from Gemini.' }, { text: 'Hello from Groq.' });
    expect((await gemini.complete(request, { signal })).text).toBe('Hello from Gemini.');
    expect(loadedSdks).toEqual({ gemini: true, groq: false });
    expect((await groq.complete(request, { signal })).text).toBe('Hello from Groq.');
    expect(loadedSdks).toEqual({ gemini: true, groq: true });
  });
});
