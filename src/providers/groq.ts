import type Groq from 'groq-sdk';
import { AbortedError } from '../core/errors.ts';
import type { ChatModel } from '../core/ports.ts';
import type { ChatModelOptions } from './chat-options.ts';
import { completionsChatModel, mapSdkError, sdkClientOptions } from './openai.ts';
import { loadedFirst } from './streamed-model.ts';

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
    client ??= new GroqClient(sdkClientOptions(options));
    return client;
  };
}

/** A chat model over Groq's chat-completions API (groq-sdk). */
export function createGroqChatModel(options: GroqOptions): ChatModel {
  const client = lazyGroqClient(options);
  const model = completionsChatModel(
    options,
    'groq',
    async (body, signal) => (await client()).chat.completions.create(body, { signal }),
    mapGroqError,
  );
  return loadedFirst(model, loadGroqSdk);
}

/** groq-sdk errors → ProviderError, as for openai (broken or cut-off answers are transient). */
export function mapGroqError(error: unknown, signal: AbortSignal): unknown {
  // Before the SDK is loaded, no SDK error can have been thrown (the load itself failed).
  if (!sdk) return signal.aborted ? new AbortedError() : error;
  return mapSdkError('groq', error, signal, sdk.default);
}
