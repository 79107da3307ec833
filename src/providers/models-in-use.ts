import type { ModelCatalog } from '../usage/catalog.ts';
import type { ModelUse } from '../usage/unknown-prices.ts';
import { parseModelRef } from './model-ref.ts';
import type { Provider } from './registry.ts';
import { type ProviderSettings, providerConfigured, specOf } from './registry.ts';
import { visionModelRef } from './vision.ts';

/**
 * Every model the configuration will call, with what for: the chat model, LLM_FALLBACK, the
 * vision model (when a chat model cannot see images), speech to text (unless STT_PROVIDER
 * is off), text to speech (when VOICE_REPLY is not off) and each pack's manifest `model` (when its provider is set up; otherwise the chat
 * model answers). Mirrors how createApp builds them.
 */
export function modelsInUse(
  config: ProviderSettings & {
    voice?: { reply: string; tts: { provider: Provider; model: string } };
  },
  catalog: ModelCatalog,
  packModels: readonly { pack: string; model: string | undefined }[] = [],
): ModelUse[] {
  const { provider } = config.llm;
  const uses: ModelUse[] = [
    { provider, model: config.llm.model ?? specOf(provider).defaults.chat, use: 'chat' },
  ];
  const { fallback } = config.llm;
  if (fallback) uses.push({ ...fallback, use: 'fallback' });
  // Photos go inline only when the chat model and the fallback both see images.
  const inline = uses.every((u) => catalog.acceptsImages(u.provider, u.model));
  const vision = visionModelRef(config);
  if (!inline && vision && providerConfigured(config, vision.provider))
    uses.push({ ...vision, use: 'vision' });
  if (config.stt) uses.push({ provider: config.stt.provider, model: config.stt.model, use: 'stt' });
  // Voice replies on by default: TTS_MODEL speaks answers (a chat's /voice may still turn
  // them on where the default is off; its calls then pass the same price check).
  const tts = config.voice?.reply !== 'off' ? config.voice?.tts : undefined;
  if (tts && providerConfigured(config, tts.provider)) uses.push({ ...tts, use: 'tts' });
  for (const { pack, model } of packModels) {
    if (!model) continue;
    const ref = parseModelRef(model, provider);
    if (providerConfigured(config, ref.provider)) uses.push({ ...ref, use: `pack ${pack}` });
  }
  return uses;
}
