import OpenAI from 'openai';
import type { Config, Provider } from '../config/config.ts';
import { ProviderError } from '../core/errors.ts';
import { loadGeminiSdk, mapGeminiError } from './gemini.ts';
import { loadGroqSdk, mapGroqError } from './groq.ts';
import { mapOpenAiError } from './openai.ts';

/**
 * Asks `provider` for its model list with the configured key and base URL: the cheapest
 * request that proves both (it costs no tokens). Resolves with the model names; rejects
 * with a ProviderError (a refused key names its variable, an unreachable host is transient)
 * or an abort when `signal` fires.
 */
export async function listModels(
  config: Config,
  provider: Provider,
  signal: AbortSignal,
): Promise<string[]> {
  const { apiKey, baseUrl } = config.providers[provider];
  const key = apiKey ?? 'not-needed';
  try {
    switch (provider) {
      case 'openai': {
        const client = new OpenAI({
          apiKey: key,
          ...(baseUrl ? { baseURL: baseUrl } : {}),
          maxRetries: 0,
          logLevel: 'off',
        });
        const names: string[] = [];
        for await (const model of client.models.list({ signal })) names.push(model.id);
        return names;
      }
      case 'groq': {
        const { default: Groq } = await loadGroqSdk();
        const client = new Groq({
          apiKey: key,
          ...(baseUrl ? { baseURL: baseUrl } : {}),
          maxRetries: 0,
          logLevel: 'off',
        });
        const list = await client.models.list({ signal });
        return list.data.map((model) => model.id);
      }
      case 'gemini': {
        const { GoogleGenAI } = await loadGeminiSdk();
        const ai = new GoogleGenAI({
          apiKey: key,
          ...(baseUrl ? { httpOptions: { baseUrl } } : {}),
        });
        const names: string[] = [];
        const pager = await ai.models.list({ config: { pageSize: 1000, abortSignal: signal } });
        for await (const model of pager) if (model.name) names.push(stripPrefix(model.name));
        return names;
      }
    }
  } catch (error) {
    throw mapProbeError(provider, error, signal);
  }
}

function mapProbeError(provider: Provider, error: unknown, signal: AbortSignal): unknown {
  const mapped =
    provider === 'gemini'
      ? mapGeminiError(error, signal)
      : provider === 'groq'
        ? mapGroqError(error, signal)
        : mapOpenAiError(provider, error, signal);
  if (mapped instanceof ProviderError || !(mapped instanceof Error)) return mapped;
  // Anything else (a body the SDK could not read) still names the provider.
  return new ProviderError(provider, `${provider}: ${mapped.message}`, {
    transient: false,
    cause: mapped,
  });
}

/** Gemini names its models `models/<name>`. */
function stripPrefix(name: string): string {
  return name.startsWith('models/') ? name.slice('models/'.length) : name;
}
