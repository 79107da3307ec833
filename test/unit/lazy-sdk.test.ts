import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeModel } from '../fakes/model-server.ts';

/** Whether @google/genai has been loaded in this test file's module graph. */
const loaded = vi.hoisted(() => ({ gemini: false }));
vi.mock('@google/genai', async (original) => {
  loaded.gemini = true;
  return original();
});

let fake: FakeModel;
beforeAll(async () => {
  fake = await FakeModel.start();
});
afterAll(() => fake.stop());

describe('the Gemini SDK', () => {
  it('is loaded by the first Gemini call, not by a bot that does not call Gemini', async () => {
    const { createGeminiChatModel } = await import('../../src/providers/gemini.ts');
    const { createOpenAiChatModel } = await import('../../src/providers/openai.ts');
    const openai = createOpenAiChatModel({
      baseUrl: `${fake.url}/v1`,
      model: 'm',
      timeoutMs: 5000,
    });
    const gemini = createGeminiChatModel({ baseUrl: fake.url, model: 'g', timeoutMs: 5000 });
    const request = { system: 'Be brief.', messages: [{ role: 'user' as const, content: 'hi' }] };
    const signal = new AbortController().signal;

    await openai.complete(request, { signal });
    expect(loaded.gemini).toBe(false);

    fake.enqueue({ text: 'Hello from Gemini.' });
    const answer = await gemini.complete(request, { signal });
    expect(loaded.gemini).toBe(true);
    expect(answer.text).toBe('Hello from Gemini.');
  });
});
