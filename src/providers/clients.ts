import OpenAI from 'openai';
import type { ChatModel, Logger, Speaker, Transcriber } from '../core/ports.ts';
import { createGeminiChatModel, loadGeminiSdk, mapGeminiError } from './gemini.ts';
import { createGroqChatModel, loadGroqSdk, mapGroqError } from './groq.ts';
import { createGroqTranscriber } from './groq-stt.ts';
import { createOpenAiChatModel, mapOpenAiError } from './openai.ts';
import { createOpenAiTranscriber } from './openai-stt.ts';
import { createOpenAiSpeaker, type TtsOptions } from './openai-tts.ts';
import type { Provider, ProviderAccess, TranscriberOptions } from './registry.ts';

/** What a provider's chat model is made with: its key and base URL, and the model's. */
export interface ChatModelOptions extends ProviderAccess {
  model: string;
  timeoutMs: number;
  /** The model takes images inline (the model catalog says). */
  acceptsImages: boolean;
  /** Where a tool left out of the requests (its schema cannot be converted) is reported. */
  log?: Logger | undefined;
}

/**
 * What a provider does, next to its spec in registry.ts. The SDK of a provider that loads
 * its SDK lazily must stay unloaded until a call needs it (the factories only build).
 */
export interface ProviderClients {
  chatModel(options: ChatModelOptions): ChatModel;
  /** Speech to text, for each provider whose spec has an `stt` default. */
  transcriber?(options: TranscriberOptions): Transcriber;
  /** Text to speech (voice replies, SPEC §18), for a provider with an `/audio/speech` API. */
  speaker?(options: TtsOptions): Speaker;
  /** The doctor's probe: the model names, from a request that costs no tokens. */
  listModels(access: ProviderAccess, signal: AbortSignal): Promise<string[]>;
  /** The SDK's errors as ProviderError (a refused key names its variable) or AbortedError. */
  mapError(error: unknown, signal: AbortSignal): unknown;
}

/** A compatible server may take no key, but the SDKs will not start without one. */
const keyOf = (access: ProviderAccess) => access.apiKey ?? 'not-needed';

const openai: ProviderClients = {
  chatModel: (options) => createOpenAiChatModel(options),
  transcriber: (options) => createOpenAiTranscriber(options),
  speaker: (options) => createOpenAiSpeaker(options),
  async listModels(access, signal) {
    const client = new OpenAI({
      apiKey: keyOf(access),
      ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
      maxRetries: 0,
      logLevel: 'off',
    });
    const names: string[] = [];
    for await (const model of client.models.list({ signal })) names.push(model.id);
    return names;
  },
  mapError: (error, signal) => mapOpenAiError('openai', error, signal),
};

const gemini: ProviderClients = {
  chatModel: (options) => createGeminiChatModel(options),
  async listModels(access, signal) {
    const { GoogleGenAI } = await loadGeminiSdk();
    const ai = new GoogleGenAI({
      apiKey: keyOf(access),
      ...(access.baseUrl ? { httpOptions: { baseUrl: access.baseUrl } } : {}),
    });
    const names: string[] = [];
    const pager = await ai.models.list({ config: { pageSize: 1000, abortSignal: signal } });
    // Gemini names its models `models/<name>`.
    for await (const model of pager)
      if (model.name) names.push(model.name.replace(/^models\//, ''));
    return names;
  },
  mapError: mapGeminiError,
};

const groq: ProviderClients = {
  // baseUrl is Groq's host root: the SDK adds /openai/v1.
  chatModel: (options) => createGroqChatModel(options),
  transcriber: (options) => createGroqTranscriber(options),
  async listModels(access, signal) {
    const { default: Groq } = await loadGroqSdk();
    const client = new Groq({
      apiKey: keyOf(access),
      ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
      maxRetries: 0,
      logLevel: 'off',
    });
    const list = await client.models.list({ signal });
    return list.data.map((model) => model.id);
  },
  mapError: mapGroqError,
};

/** Each provider's clients: a provider in registry.ts without an entry here does not compile. */
export const PROVIDER_CLIENTS: Readonly<Record<Provider, ProviderClients>> = {
  openai,
  gemini,
  groq,
};
