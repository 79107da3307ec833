import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { AbortedError, ProviderError, ProviderTimeoutError } from '../../src/core/errors.ts';
import type { AudioInput } from '../../src/core/ports.ts';
import { createGroqTranscriber, whisperFileName } from '../../src/providers/groq-stt.ts';
import { createTranscriber } from '../../src/providers/index.ts';
import { useFakeModel } from '../support/fake-model.ts';

const fake = useFakeModel();

const voice: AudioInput = {
  data: Buffer.from('OggS fake opus bytes'),
  fileName: 'voice.oga',
  mimeType: 'audio/ogg',
};

const env = (extra: Record<string, string>) =>
  parseConfig({ TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', OPENAI_API_KEY: 'sk', ...extra });

const transcriber = (timeoutMs = 5000) =>
  createGroqTranscriber({ apiKey: 'gsk', baseUrl: fake.url, model: 'whisper-large-v3', timeoutMs });

const signal = () => new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('createTranscriber', () => {
  it('is undefined when STT_PROVIDER is off, or by default without a key for it', () => {
    expect(createTranscriber(env({ STT_PROVIDER: 'off', GROQ_API_KEY: 'gsk' }))).toBeUndefined();
    // OPENAI_API_KEY on another server does not turn it on: that server may not transcribe.
    expect(
      createTranscriber(env({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', GROQ_BASE_URL: fake.url })),
    ).toBeUndefined();
  });

  it('uses STT_MODEL on Groq when a key is set', () => {
    expect(createTranscriber(env({ GROQ_API_KEY: 'gsk' }))?.info).toEqual({
      provider: 'groq',
      model: 'whisper-large-v3-turbo',
    });
    const custom = createTranscriber(env({ GROQ_API_KEY: 'gsk', STT_MODEL: 'whisper-large-v3' }));
    expect(custom?.info.model).toBe('whisper-large-v3');
  });

  it('transcribes through GROQ_BASE_URL', async () => {
    fake.enqueueTranscription({ text: 'hallo', duration: 2 });
    const stt = createTranscriber(
      env({ GROQ_API_KEY: 'gsk', GROQ_BASE_URL: fake.url, STT_MODEL: 'whisper-large-v3' }),
    );
    if (!stt) throw new Error('expected a transcriber');
    expect(await stt.transcribe(voice, { signal: signal() })).toEqual({
      text: 'hallo',
      durationSec: 2,
    });
    const [req] = fake.requests({ kind: 'transcription' });
    expect(req?.model).toBe('whisper-large-v3');
  });
});

describe('Groq transcriber', () => {
  it('sends a voice note as .ogg with the model, and returns its text and duration', async () => {
    fake.enqueueTranscription({ text: 'buy milk and eggs', duration: 4.25 });
    const result = await transcriber().transcribe(voice, { signal: signal() });

    expect(result).toEqual({ text: 'buy milk and eggs', durationSec: 4.25 });
    const [req] = fake.requests({ provider: 'groq', kind: 'transcription' });
    expect(req?.path).toBe('/openai/v1/audio/transcriptions');
    expect(req?.headers.authorization).toBe('Bearer gsk');
    expect(req?.body.fields).toMatchObject({
      model: 'whisper-large-v3',
      response_format: 'verbose_json',
    });
    expect(req?.body.file).toMatchObject({ filename: 'voice.ogg', contentType: 'audio/ogg' });
    expect(req?.body.file.data).toEqual(voice.data);
  });

  it('keeps the name of a format Whisper takes', () => {
    expect(whisperFileName('voice.oga')).toBe('voice.ogg');
    expect(whisperFileName('VOICE.OGA')).toBe('VOICE.ogg');
    expect(whisperFileName('memo.mp3')).toBe('memo.mp3');
    expect(whisperFileName('oga.m4a')).toBe('oga.m4a');
  });

  it.each([
    [500, true],
    [503, true],
    [429, true],
    [401, false],
  ])('maps HTTP %i to a ProviderError (transient %s)', async (status, transient) => {
    fake.enqueueTranscription({ status });
    const error = await failure(transcriber().transcribe(voice, { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'groq', status, transient });
  });

  it('aborts a pending transcription when the signal fires', async () => {
    fake.enqueueTranscription({ text: 'late', delayMs: 60_000 });
    const controller = new AbortController();
    const call = failure(transcriber().transcribe(voice, { signal: controller.signal }));
    await fake.waitForTranscription(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortedError);
    expect((await fake.waitForAbort()).kind).toBe('transcription');
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(transcriber().transcribe(voice, { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortedError);
  });

  it('gives up when no answer comes in time', async () => {
    fake.enqueueTranscription({ text: 'late', delayMs: 60_000 });
    const error = await failure(transcriber(150).transcribe(voice, { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({ provider: 'groq', transient: true });
    await fake.waitForAbort();
  });
});
