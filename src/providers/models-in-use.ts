import type { Config } from '../config/config.ts';
import { modelAcceptsImages } from '../usage/models.ts';
import type { ModelUse } from '../usage/unknown-prices.ts';
import { DEFAULT_CHAT_MODELS, providerConfigured } from './index.ts';
import { parseModelRef } from './model-ref.ts';
import { DEFAULT_VISION_MODELS } from './vision.ts';

/**
 * Every model the configuration will call, with what for: the chat model, LLM_FALLBACK, the
 * vision model (when a chat model cannot see images), Whisper (when Groq is set up) and
 * each pack's manifest `model` (when its provider is set up; otherwise the chat model
 * answers). Mirrors how createApp builds them.
 */
export function modelsInUse(
  config: Config,
  packModels: readonly { pack: string; model: string | undefined }[] = [],
): ModelUse[] {
  const { provider } = config.llm;
  const uses: ModelUse[] = [
    { provider, model: config.llm.model ?? DEFAULT_CHAT_MODELS[provider], use: 'chat' },
  ];
  const { fallback } = config.llm;
  if (fallback) uses.push({ ...fallback, use: 'fallback' });
  // Photos go inline only when the chat model and the fallback both see images.
  const inline = uses.every((u) => modelAcceptsImages(u.provider, u.model));
  const vision = config.visionModel
    ? parseModelRef(config.visionModel, provider)
    : { provider, model: DEFAULT_VISION_MODELS[provider] };
  if (!inline && providerConfigured(config, vision.provider))
    uses.push({ ...vision, use: 'vision' });
  if (providerConfigured(config, 'groq'))
    uses.push({ provider: 'groq', model: config.sttModel, use: 'stt' });
  for (const { pack, model } of packModels) {
    if (!model) continue;
    const ref = parseModelRef(model, provider);
    if (providerConfigured(config, ref.provider)) uses.push({ ...ref, use: `pack ${pack}` });
  }
  return uses;
}
