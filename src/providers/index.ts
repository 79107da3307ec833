import type { Config, Provider } from '../config/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { ChatModel } from '../core/ports.ts';
import { createOpenAiChatModel } from './openai.ts';

export const DEFAULT_CHAT_MODELS: Record<Provider, string> = {
  openai: 'gpt-4.1-mini',
  groq: 'llama-3.3-70b-versatile',
  gemini: 'gemini-2.5-flash',
};

const GROQ_HOST = 'https://api.groq.com';

/** The chat model for a provider, with the configured keys and base URLs. */
export function createChatModel(config: Config, provider: Provider, model?: string): ChatModel {
  const name = model ?? DEFAULT_CHAT_MODELS[provider];
  const { timeoutMs } = config.llm;
  switch (provider) {
    case 'openai':
      return createOpenAiChatModel({ ...config.providers.openai, model: name, timeoutMs });
    case 'groq': {
      // Groq's chat API is OpenAI-compatible under /openai/v1 of its host.
      const host = config.providers.groq.baseUrl ?? GROQ_HOST;
      return createOpenAiChatModel({
        apiKey: config.providers.groq.apiKey,
        baseUrl: `${host.replace(/\/+$/, '')}/openai/v1`,
        model: name,
        timeoutMs,
        provider: 'groq',
      });
    }
    case 'gemini':
      throw new ConfigError('LLM_PROVIDER=gemini is not available yet: use openai or groq');
  }
}
