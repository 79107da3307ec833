import type { Transcriber } from '../core/ports.ts';
import { lazyGroqClient, loadGroqSdk, mapGroqError } from './groq.ts';
import { withIdleTimeout } from './idle-timeout.ts';

export interface GroqTranscriberOptions {
  apiKey?: string | undefined;
  /** The host root (the SDK adds /openai/v1); the SDK's default when unset. */
  baseUrl?: string | undefined;
  model: string;
  /** How long the call may go without an answer. */
  timeoutMs: number;
}

const PROVIDER = 'groq';

/**
 * Speech to text over Groq's Whisper API (groq-sdk). Asks for `verbose_json`, the format
 * that reports the audio's duration, which the ledger books. Failures reject with a
 * ProviderError (a timeout with a ProviderTimeoutError), an abort with AbortedError.
 */
export function createGroqTranscriber(options: GroqTranscriberOptions): Transcriber {
  const client = lazyGroqClient(options);
  const info = { provider: PROVIDER, model: options.model };

  return {
    info,
    async transcribe(audio, { signal }) {
      // The SDK loads before the idle timeout starts: its load is not Groq's time.
      await loadGroqSdk();
      return withIdleTimeout(
        { provider: PROVIDER, timeoutMs: options.timeoutMs, signal },
        async (sdkSignal) => {
          const { toFile } = await loadGroqSdk();
          const { audio: api } = await client();
          const file = await toFile(audio.data, whisperFileName(audio.fileName), {
            ...(audio.mimeType ? { type: audio.mimeType } : {}),
          });
          const result = await api.transcriptions.create(
            { file, model: options.model, response_format: 'verbose_json' },
            { signal: sdkSignal },
          );
          // `duration` is only in the verbose format, which the SDK's type does not describe.
          const duration = (result as { duration?: unknown }).duration;
          return {
            text: result.text ?? '',
            durationSec: typeof duration === 'number' && duration >= 0 ? duration : undefined,
          };
        },
        (error) => mapGroqError(error, signal),
      );
    },
  };
}

/**
 * The name to upload audio under: Whisper picks the format by the extension and rejects
 * `.oga` (Telegram's name for its Ogg/Opus voice notes), which it reads fine as `.ogg`.
 */
export function whisperFileName(fileName: string): string {
  return fileName.replace(/\.oga$/i, '.ogg');
}
