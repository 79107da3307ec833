import type { CoreConfig } from '../config/config.ts';
import { systemClock } from '../core/clock.ts';
import type { ChatModel, Logger } from '../core/ports.ts';
import { createChatModel, createSpeaker, createTranscriber } from '../providers/index.ts';
import { createModelChoice } from '../providers/model-choice.ts';
import { createOfferedModels } from '../providers/offered-models.ts';
import { listModels } from '../providers/probe.ts';
import { createVisionModel } from '../providers/vision.ts';
import type { ModelCatalog } from '../usage/catalog.ts';

/**
 * The models satchel talks to: the chat model (or the one a test scripts) and its fallback,
 * the choice of model per pack and conversation, speech-to-text, vision and text to speech.
 */
export function buildProviders(
  config: CoreConfig,
  catalog: ModelCatalog,
  log: Logger,
  chatModel: ChatModel | undefined,
) {
  const model =
    chatModel ?? createChatModel(config, catalog, config.llm.provider, config.llm.model, log);
  const fallback = config.llm.fallback
    ? createChatModel(config, catalog, config.llm.fallback.provider, config.llm.fallback.model, log)
    : undefined;
  const offered = createOfferedModels({
    config,
    catalog,
    list: (provider, signal) => listModels(config, provider, signal),
    clock: systemClock,
    log,
  });
  return {
    model,
    fallback,
    models: createModelChoice(config, catalog, model, offered, log),
    transcriber: createTranscriber(config),
    speaker: createSpeaker(config),
    vision: createVisionModel(config, catalog, log),
  };
}

export type Providers = ReturnType<typeof buildProviders>;
