import Groq from 'groq-sdk';
import type { ChatModel, ModelInfo } from '../core/ports.ts';
import { withIdleTimeout } from './idle-timeout.ts';
import { collectChatStream, mapSdkError, toWireMessages, toWireTools } from './openai.ts';

export interface GroqOptions {
  apiKey?: string | undefined;
  /** The host root (the SDK adds /openai/v1); the SDK's default when unset. */
  baseUrl?: string | undefined;
  model: string;
  timeoutMs: number;
  /** The model takes images inline (the model catalog says); text-only when unset. */
  acceptsImages?: boolean;
}

/** A chat model over Groq's chat-completions API (groq-sdk). */
export function createGroqChatModel(options: GroqOptions): ChatModel {
  const client = new Groq({
    apiKey: options.apiKey ?? 'not-needed',
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    // As for openai: an unparsable chunk is not printed; the mapped error is logged.
    logLevel: 'off',
  });
  const info: ModelInfo = {
    provider: 'groq',
    model: options.model,
    acceptsImages: options.acceptsImages ?? false,
  };

  return {
    info,
    async complete(request, { signal, onText }) {
      return withIdleTimeout(
        { provider: info.provider, timeoutMs: options.timeoutMs, signal },
        async (sdkSignal, progress) => {
          const stream = await client.chat.completions.create(
            {
              model: options.model,
              messages: toWireMessages(request),
              ...(request.tools?.length ? { tools: toWireTools(request) } : {}),
              stream: true,
            },
            { signal: sdkSignal },
          );
          // Usage arrives in the final chunk's x_groq.usage (or `usage`); the collector reads both.
          return collectChatStream(stream, progress, onText);
        },
        (error) => mapGroqError(error, signal),
      );
    },
  };
}

/** groq-sdk errors → ProviderError, as for openai (broken or cut-off answers are transient). */
export function mapGroqError(error: unknown, signal: AbortSignal): unknown {
  return mapSdkError('groq', error, signal, Groq);
}
