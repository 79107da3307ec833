/**
 * Speech to text on any provider (SPEC §1: STT_PROVIDER, STT_MODEL, STT_BASE_URL,
 * STT_API_KEY), end to end from a Telegram voice note: OpenAI's `/audio/transcriptions`
 * through the openai SDK, a local Whisper server on another host than the chat's, and
 * speech-to-text turned off. The fake model servers are strict: they refuse a model they do
 * not transcribe with, a file named `.oga`, and `verbose_json` from a gpt-4o model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NO_STT } from '../../src/inbound/media.ts';
import { FakeModel, lastUserText } from '../fakes/model-server.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();

const ledger = () =>
  h.rows<{
    kind: string;
    provider: string;
    model: string;
    audio_seconds: number;
    cost_usd: number | null;
    ok: number;
  }>('SELECT kind, provider, model, audio_seconds, cost_usd, ok FROM usage_events ORDER BY id');

/** A voice note as Telegram delivers one: Ogg/Opus named `.oga`. */
function sendVoice(duration = 6) {
  h.tg.addFile('v1', Buffer.from('OggS fake opus bytes'), 'voice/file_3.oga');
  h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1', duration });
}

let whisper: FakeModel | undefined;
afterEach(async () => {
  await whisper?.stop();
  whisper = undefined;
});

describe('speech to text on OpenAI', () => {
  it('transcribes a voice note with gpt-4o-mini-transcribe as .ogg and books it from the catalog', async () => {
    await h.start({ STT_PROVIDER: 'openai' });
    h.model.enqueueTranscription({ text: 'book a table for two at eight' });
    sendVoice(6);
    await settled(h, 1);

    const [stt] = h.model.requests({ kind: 'transcription' });
    expect(stt).toMatchObject({ provider: 'openai', path: '/v1/audio/transcriptions' });
    expect(stt?.headers.authorization).toMatch(/^Bearer sk-test-openai-key/);
    expect(stt?.body.fields).toMatchObject({
      model: 'gpt-4o-mini-transcribe',
      response_format: 'json',
    });
    expect(stt?.body.file).toMatchObject({ filename: 'file_3.ogg', contentType: 'audio/ogg' });
    const said = lastUserText(h.model.chatRequests()[0]!);
    expect(said).toMatch(/voice message, transcribed/i);
    expect(said).toContain('book a table for two at eight');
    expect(h.tg.texts(ALLOWED_USER)).toHaveLength(1);
    // The gpt-4o models report tokens, not seconds: the note's own length is booked, at
    // the catalog's $0.18 an hour.
    const [row] = ledger();
    expect(row).toMatchObject({
      kind: 'stt',
      provider: 'openai',
      model: 'gpt-4o-mini-transcribe',
      audio_seconds: 6,
      ok: 1,
    });
    expect(row?.cost_usd).toBeCloseTo((0.18 * 6) / 3600, 10);
  });

  it('books the seconds whisper-1 reports', async () => {
    await h.start({ STT_PROVIDER: 'openai', STT_MODEL: 'whisper-1' });
    h.model.enqueueTranscription({ text: 'hello', duration: 3.5 });
    sendVoice(4);
    await settled(h, 1);
    expect(h.model.requests({ kind: 'transcription' })[0]?.model).toBe('whisper-1');
    expect(ledger()[0]).toMatchObject({ kind: 'stt', model: 'whisper-1', audio_seconds: 3.5 });
  });
});

describe('speech to text on a server of its own', () => {
  it('sends voice to STT_BASE_URL with STT_API_KEY and STT_MODEL, and chat to the chat server', async () => {
    whisper = await FakeModel.start();
    whisper.setTranscriptionModels('openai', ['Systran/faster-whisper-small']);
    whisper.requireKey('openai', 'local-whisper-key');
    whisper.enqueueTranscription({ text: 'call mum tomorrow' });
    await h.start({
      STT_PROVIDER: 'openai',
      STT_BASE_URL: `${whisper.url}/v1`,
      STT_API_KEY: 'local-whisper-key',
      STT_MODEL: 'Systran/faster-whisper-small',
    });
    sendVoice(2);
    await settled(h, 1);

    expect(whisper.requests().map((r) => r.kind)).toEqual(['transcription']);
    expect(whisper.requests()[0]?.body.file.filename).toBe('file_3.ogg');
    expect(h.model.requests({ kind: 'transcription' })).toEqual([]);
    expect(lastUserText(h.model.chatRequests()[0]!)).toContain('call mum tomorrow');
    // Unpriced (no USD cap applies): booked with its seconds and no cost.
    expect(ledger()[0]).toMatchObject({
      kind: 'stt',
      model: 'Systran/faster-whisper-small',
      audio_seconds: 2,
      cost_usd: null,
    });
  });
});

describe('speech to text turned off', () => {
  it('answers a voice note with the variable that turns it on, and transcribes nothing', async () => {
    await h.start(({ model }) => ({
      STT_PROVIDER: 'off',
      GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
      GROQ_BASE_URL: model.url,
    }));
    sendVoice();
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([NO_STT]);
    expect(NO_STT).toContain('STT_PROVIDER');
    expect(h.model.requests({ kind: 'transcription' })).toEqual([]);
    expect(h.model.chatRequests()).toEqual([]);
  });

  it('is off by default when the only OpenAI key is for another server', async () => {
    // The harness's chat server is the fake (OPENAI_BASE_URL): not OpenAI's own.
    await h.start();
    sendVoice();
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([NO_STT]);
    expect(h.model.requests({ kind: 'transcription' })).toEqual([]);
  });
});
