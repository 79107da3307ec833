import type { ChatModel, ChatRequest, Logger } from '../core/ports.ts';
import type { ImageInput } from '../core/types.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { createChatModel } from './index.ts';
import { parseModelRef } from './model-ref.ts';
import { type ProviderSettings, providerConfigured, specOf } from './registry.ts';

export { parseModelRef };

/**
 * The model that describes photos for a chat model that cannot see: VISION_MODEL, else the
 * chat provider's default vision model (registry.ts). Undefined when that provider has no
 * key or base URL, or no default vision model.
 * The model is returned even when the catalog does not know it as image-capable (its
 * `info.acceptsImages` says so): whether to use it is the caller's decision.
 */
export function createVisionModel(
  config: ProviderSettings,
  catalog: ModelCatalog,
  log?: Logger,
): ChatModel | undefined {
  const ref = visionModelRef(config);
  if (!ref || !providerConfigured(config, ref.provider)) return undefined;
  return createChatModel(config, catalog, ref.provider, ref.model, log);
}

/** Which model describes photos: VISION_MODEL, else the chat provider's default, if any. */
export function visionModelRef(config: ProviderSettings) {
  const { provider } = config.llm;
  if (config.visionModel) return parseModelRef(config.visionModel, provider);
  const model = specOf(provider).defaults.vision;
  return model === undefined ? undefined : { provider, model };
}

export const DESCRIBE_SYSTEM_PROMPT = [
  'You describe images for an assistant that cannot see them; your description is all it will know of them.',
  'Be faithful and concrete: what the image shows, the people, objects, setting and anything the caption points at.',
  'Transcribe all visible text verbatim, in its original language, line by line and in reading order (word lists, book pages, notes, signs, screenshots, handwriting); write [illegible] for what you cannot read.',
  'Do not guess beyond what is visible, do not answer questions in the caption, and add no advice.',
  'With several images, describe each under its own heading (Image 1, Image 2, ...).',
].join('\n');

/**
 * The request that asks a vision model to describe `images`. The caption goes along so the
 * description covers what the user is asking about.
 */
export function describeRequest(images: ImageInput[], caption: string): ChatRequest {
  const one = images.length === 1;
  const what = one ? 'this image' : `these ${images.length} images`;
  const trimmed = caption.trim();
  const content = trimmed
    ? `Describe ${what}. The user sent ${one ? 'it' : 'them'} with this caption:\n${trimmed}`
    : `Describe ${what}.`;
  return { system: DESCRIBE_SYSTEM_PROMPT, messages: [{ role: 'user', content, images }] };
}
