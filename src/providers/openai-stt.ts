import { toFile } from 'openai';
import type { Transcriber } from '../core/ports.ts';
import { whisperFileName } from './groq-stt.ts';
import { withIdleTimeout } from './idle-timeout.ts';
import { mapOpenAiError, openAiClient } from './openai.ts';
import type { TranscriberOptions } from './registry.ts';

const PROVIDER = 'openai';

/**
 * Speech to text over the OpenAI-compatible `/audio/transcriptions` API (the openai SDK):
 * OpenAI (`gpt-4o-mini-transcribe`, `gpt-4o-transcribe`, `whisper-1`) or a compatible server
 * such as a local Whisper, at STT_BASE_URL. Asks for `json`, the one format every one of those
 * models takes (the gpt-4o models refuse `verbose_json`); the audio's length comes from the
 * answer's `usage` when it reports seconds (whisper-1), else the caller keeps what the channel
 * said. Failures reject with a ProviderError (a timeout with a ProviderTimeoutError), an
 * abort with AbortedError.
 */
export function createOpenAiTranscriber(options: TranscriberOptions): Transcriber {
  const client = openAiClient(options);
  const info = { provider: PROVIDER, model: options.model };

  return {
    info,
    transcribe: (audio, { signal }) =>
      withIdleTimeout(
        { provider: PROVIDER, timeoutMs: options.timeoutMs, signal },
        async (sdkSignal) => {
          const file = await toFile(audio.data, whisperFileName(audio.fileName), {
            ...(audio.mimeType ? { type: audio.mimeType } : {}),
          });
          const result = await client.audio.transcriptions.create(
            { file, model: options.model, response_format: 'json' },
            { signal: sdkSignal },
          );
          const usage = result.usage;
          const seconds = usage?.type === 'duration' ? usage.seconds : undefined;
          return {
            text: result.text ?? '',
            durationSec: typeof seconds === 'number' && seconds >= 0 ? seconds : undefined,
          };
        },
        (error) => mapOpenAiError(PROVIDER, error, signal),
      ),
  };
}
