import type { Config, Provider } from '../config/config.ts';
import type { ChatModel } from '../core/ports.ts';
import { createGeminiChatModel } from './gemini.ts';
import { createGroqChatModel } from './groq.ts';
import { createOpenAiChatModel } from './openai.ts';

export const DEFAULT_CHAT_MODELS: Record<Provider, string> = {
  openai: 'gpt-4.1-mini',
  groq: 'llama-3.3-70b-versatile',
  gemini: 'gemini-2.5-flash',
};

/** The chat model for a provider, with the configured keys and base URLs. */
export function createChatModel(config: Config, provider: Provider, model?: string): ChatModel {
  const name = model ?? DEFAULT_CHAT_MODELS[provider];
  const { timeoutMs } = config.llm;
  switch (provider) {
    case 'openai':
      return createOpenAiChatModel({ ...config.providers.openai, model: name, timeoutMs });
    case 'groq':
      // baseUrl is Groq's host root: the SDK adds /openai/v1.
      return createGroqChatModel({ ...config.providers.groq, model: name, timeoutMs });
    case 'gemini':
      return createGeminiChatModel({ ...config.providers.gemini, model: name, timeoutMs });
  }
}
