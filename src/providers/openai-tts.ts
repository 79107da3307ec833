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
 * Telegram voice note is. Failures reject with a ProviderError, an abort with AbortedError.
 */
export function createOpenAiSpeaker(options: TtsOptions): Speaker {
  const client = openAiClient(options);
  const info = { provider: 'openai', model: options.model };

  return {
    info,
    speak: (text, { signal }) =>
      withIdleTimeout(
        { provider: info.provider, timeoutMs: options.timeoutMs, signal },
        async (sdkSignal) => {
          const response = await client.audio.speech.create(
            { model: options.model, input: text, voice: options.voice, response_format: 'opus' },
            { signal: sdkSignal },
          );
          return Buffer.from(await response.arrayBuffer());
        },
        (error) => mapOpenAiError(info.provider, error, signal),
      ),
  };
}
