import type { ChatModel, Logger, Speaker, Transcriber } from '../core/ports.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { PROVIDER_CLIENTS } from './clients.ts';
import { parseModelRef } from './model-ref.ts';
import { type Provider, type ProviderSettings, providerConfigured, specOf } from './registry.ts';

/**
 * The chat model for a provider, with the configured keys and base URLs. Whether it takes
 * images inline comes from the model catalog: an unknown model is text-only. `log` hears of
 * tools left out of its requests (`tool_schema_refused`).
 */
export function createChatModel(
  config: ProviderSettings,
  catalog: ModelCatalog,
  provider: Provider,
  model?: string,
  log?: Logger,
): ChatModel {
  const name = model ?? specOf(provider).defaults.chat;
  return PROVIDER_CLIENTS[provider].chatModel({
    ...config.providers[provider],
    model: name,
    timeoutMs: config.llm.timeoutMs,
    acceptsImages: catalog.acceptsImages(provider, name),
    log,
  });
}

/**
 * Chat models by reference (`model` for LLM_PROVIDER, or `provider:model`), made once each:
 * a pack's manifest `model` answers that pack's turns. A reference to a provider without a
 * key or base URL falls back to the default model (packs are validated before a key is known).
 */
export function createModelResolver(
  config: ProviderSettings,
  catalog: ModelCatalog,
  defaultModel: ChatModel,
  log?: Logger,
) {
  const made = new Map<string, ChatModel>();
  return (ref: string | undefined): ChatModel => {
    if (!ref) return defaultModel;
    const known = made.get(ref);
    if (known) return known;
    const { provider, model } = parseModelRef(ref, config.llm.provider);
    const chat = providerConfigured(config, provider)
      ? createChatModel(config, catalog, provider, model, log)
      : defaultModel;
    made.set(ref, chat);
    return chat;
  };
}

/**
 * The speech-to-text service: STT_PROVIDER's transcriber with STT_MODEL, on its key and
 * server (STT_API_KEY, STT_BASE_URL, else the provider's). Undefined when speech-to-text is
 * off, so voice messages get a clear "not set up" answer.
 */
export function createTranscriber(config: ProviderSettings): Transcriber | undefined {
  const stt = config.stt;
  if (!stt) return undefined;
  return PROVIDER_CLIENTS[stt.provider].transcriber?.({
    apiKey: stt.apiKey,
    baseUrl: stt.baseUrl,
    model: stt.model,
    timeoutMs: config.llm.timeoutMs,
  });
}

/**
 * Text to speech for voice replies: TTS_MODEL's provider with TTS_VOICE. Undefined when that
 * provider has no `/audio/speech` API here or neither a key nor a base URL, so `/voice on`
 * can say voice replies are not set up.
 */
export function createSpeaker(
  config: ProviderSettings & {
    voice: { tts: { provider: Provider; model: string }; voice: string };
  },
): Speaker | undefined {
  const { provider, model } = config.voice.tts;
  if (!providerConfigured(config, provider)) return undefined;
  return PROVIDER_CLIENTS[provider].speaker?.({
    ...config.providers[provider],
    model,
    voice: config.voice.voice,
    timeoutMs: config.llm.timeoutMs,
  });
}
