/**
 * A lazily loaded SDK (Gemini's, Groq's) loads before a call's idle timeout starts: loading
 * our own code is not the provider making no progress. Each SDK's first load is held open
 * here for twice the timeout, as a busy machine did, and the call still goes through. (One
 * first load per SDK in a module graph: Groq's is taken by its transcriber; its chat model
 * waits for the load the way Gemini's does, through `loadedFirst`.)
 */
import { describe, expect, it, vi } from 'vitest';
import type { AudioInput } from '../../src/core/ports.ts';
import { useFakeModel } from '../support/fake-model.ts';

const TIMEOUT_MS = 500;
const LOAD_MS = 2 * TIMEOUT_MS;

const slowLoad = <T>(original: () => Promise<T>) =>
  new Promise<void>((resolve) => setTimeout(resolve, LOAD_MS)).then(original);

vi.mock('@google/genai', (original) => slowLoad(original));
vi.mock('groq-sdk', (original) => slowLoad(original));

const fake = useFakeModel();
const signal = new AbortController().signal;

describe('an SDK that takes longer to load than the idle timeout', () => {
  it("does not time out Gemini's first call", async () => {
    const { createGeminiChatModel } = await import('../../src/providers/gemini.ts');
    const gemini = createGeminiChatModel({ baseUrl: fake.url, model: 'm', timeoutMs: TIMEOUT_MS });
    fake.enqueue({ text: 'Hello from Gemini.' });
    const request = { system: 'Be brief.', messages: [{ role: 'user' as const, content: 'hi' }] };
    expect((await gemini.complete(request, { signal })).text).toBe('Hello from Gemini.');
  });

  it("does not time out Groq's first transcription", async () => {
    const { createGroqTranscriber } = await import('../../src/providers/groq-stt.ts');
    const stt = createGroqTranscriber({
      apiKey: 'gsk',
      baseUrl: fake.url,
      model: 'whisper-large-v3',
      timeoutMs: TIMEOUT_MS,
    });
    const voice: AudioInput = {
      data: Buffer.from('OggS'),
      fileName: 'v.oga',
      mimeType: 'audio/ogg',
    };
    await stt.transcribe(voice, { signal });
    expect(fake.requests({ provider: 'groq', kind: 'transcription' })).toHaveLength(1);
  });
});
