import type { CoreConfig, Provider } from '../config/config.ts';
import type { ChatModel } from '../core/ports.ts';
import { modelAcceptsImages } from '../usage/models.ts';
import { createGeminiChatModel } from './gemini.ts';
import { createGroqChatModel } from './groq.ts';
import { parseModelRef } from './model-ref.ts';
import { createOpenAiChatModel } from './openai.ts';

export const DEFAULT_CHAT_MODELS: Record<Provider, string> = {
  openai: 'gpt-4.1-mini',
  groq: 'llama-3.3-70b-versatile',
  gemini: 'gemini-2.5-flash',
};

/**
 * The chat model for a provider, with the configured keys and base URLs. Whether it takes
 * images inline comes from the model catalog: an unknown model is text-only.
 */
export function createChatModel(config: CoreConfig, provider: Provider, model?: string): ChatModel {
  const name = model ?? DEFAULT_CHAT_MODELS[provider];
  const options = {
    model: name,
    timeoutMs: config.llm.timeoutMs,
    acceptsImages: modelAcceptsImages(provider, name),
  };
  switch (provider) {
    case 'openai':
      return createOpenAiChatModel({ ...config.providers.openai, ...options });
    case 'groq':
      // baseUrl is Groq's host root: the SDK adds /openai/v1.
      return createGroqChatModel({ ...config.providers.groq, ...options });
    case 'gemini':
      return createGeminiChatModel({ ...config.providers.gemini, ...options });
  }
}

/** The provider can be called: it has a key, or a base URL (a compatible server or a proxy). */
export function providerConfigured(config: CoreConfig, provider: Provider): boolean {
  const { apiKey, baseUrl } = config.providers[provider];
  return apiKey !== undefined || baseUrl !== undefined;
}

/**
 * Chat models by reference (`model` for LLM_PROVIDER, or `provider:model`), made once each:
 * a pack's manifest `model` answers that pack's turns. A reference to a provider without a
 * key or base URL falls back to the default model (packs are validated before a key is known).
 */
export function createModelResolver(config: CoreConfig, defaultModel: ChatModel) {
  const made = new Map<string, ChatModel>();
  return (ref: string | undefined): ChatModel => {
    if (!ref) return defaultModel;
    const known = made.get(ref);
    if (known) return known;
    const { provider, model } = parseModelRef(ref, config.llm.provider);
    const chat = providerConfigured(config, provider)
      ? createChatModel(config, provider, model)
      : defaultModel;
    made.set(ref, chat);
    return chat;
  };
}
