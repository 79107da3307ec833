import { ProviderError } from '../core/errors.ts';
import type { Speaker } from '../core/ports.ts';
import { withIdleTimeout } from './idle-timeout.ts';
import { mapOpenAiError, openAiClient } from './openai.ts';
import type { ProviderAccess } from './registry.ts';

/** What a provider's text to speech is made with (TTS_MODEL, TTS_VOICE). */
export interface TtsOptions extends ProviderAccess {
  model: string;
  voice: string;
  timeoutMs: number;
}

/**
 * Text to speech over the OpenAI-compatible `/audio/speech` API (the openai SDK against
 * OPENAI_BASE_URL). Asks for `opus`, which the API returns in an OGG container: the format a
 * Telegram voice note is. The audio is read as it arrives and refused once it passes the
 * caller's `maxBytes` (a server that sends without end is cut off there, never held whole).
 * Failures reject with a ProviderError, an abort with AbortedError.
 */
export function createOpenAiSpeaker(options: TtsOptions): Speaker {
  const client = openAiClient(options);
  const info = { provider: 'openai', model: options.model };

  return {
    info,
    speak: (text, { signal, maxBytes }) =>
      withIdleTimeout(
        { provider: info.provider, timeoutMs: options.timeoutMs, signal },
        async (sdkSignal, progress) => {
          const response = await client.audio.speech.create(
            { model: options.model, input: text, voice: options.voice, response_format: 'opus' },
            { signal: sdkSignal },
          );
          return await readAtMost(response, maxBytes, progress, info.provider);
        },
        (error) => mapOpenAiError(info.provider, error, signal),
      ),
  };
}

/** The body of `response`, read chunk by chunk; rejects (and stops reading) past `maxBytes`. */
async function readAtMost(
  response: Response,
  maxBytes: number,
  progress: () => void,
  provider: string,
): Promise<Buffer> {
  const tooLarge = () =>
    new ProviderError(provider, `${provider} sent more than ${maxBytes} bytes of speech`, {
      transient: false,
    });
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
    progress();
  }
}
