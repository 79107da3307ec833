import type Groq from 'groq-sdk';
import { AbortedError } from '../core/errors.ts';
import type { ChatModel, ModelInfo } from '../core/ports.ts';
import type { ChatModelOptions } from './chat-options.ts';
import { httpFetch } from './http-fetch.ts';
import { withIdleTimeout } from './idle-timeout.ts';
import { collectChatStream, mapSdkError, toWireMessages, toWireTools } from './openai.ts';
import { refusalLog } from './tool-schemas.ts';

/** `baseUrl` is the host root: the SDK adds /openai/v1. */
export type GroqOptions = ChatModelOptions;

type GroqSdk = typeof import('groq-sdk');

/**
 * The SDK, loaded by the first Groq call (chat or speech to text): a bot that does not call
 * Groq never carries it (~10 MB, ~25 ms to load).
 */
let sdk: GroqSdk | undefined;
export async function loadGroqSdk(): Promise<GroqSdk> {
  sdk ??= await import('groq-sdk');
  return sdk;
}

/** A Groq client for `options`, made on first use. */
export function lazyGroqClient(options: {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
}) {
  let client: Groq | undefined;
  return async (): Promise<Groq> => {
    const { default: GroqClient } = await loadGroqSdk();
    client ??= new GroqClient({
      apiKey: options.apiKey ?? 'not-needed',
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      maxRetries: 0,
      fetch: httpFetch,
      // As for openai: an unparsable chunk is not printed; the mapped error is logged.
      logLevel: 'off',
    });
    return client;
  };
}

/** A chat model over Groq's chat-completions API (groq-sdk). */
export function createGroqChatModel(options: GroqOptions): ChatModel {
  const client = lazyGroqClient(options);
  const info: ModelInfo = {
    provider: 'groq',
    model: options.model,
    acceptsImages: options.acceptsImages ?? false,
  };
  const refused = refusalLog(options.log, info.provider, options.model);

  return {
    info,
    async complete(request, { signal, onText }) {
      return withIdleTimeout(
        { provider: info.provider, timeoutMs: options.timeoutMs, signal },
        async (sdkSignal, progress) => {
          const { chat } = await client();
          const tools = toWireTools(request, refused);
          const stream = await chat.completions.create(
            {
              model: options.model,
              // Tools before the messages, as the provider reads the prompt: the body then grows
              // only at its end from one request to the next (prompt caching, SPEC §14).
              ...(tools.length ? { tools } : {}),
              messages: toWireMessages(request),
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
  // Before the SDK is loaded, no SDK error can have been thrown (the load itself failed).
  if (!sdk) return signal.aborted ? new AbortedError() : error;
  return mapSdkError('groq', error, signal, sdk.default);
}
