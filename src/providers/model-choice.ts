import type { ChatModel, Logger } from '../core/ports.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { createModelResolver } from './index.ts';
import { parseModelRef } from './model-ref.ts';
import type { OfferedModels } from './offered-models.ts';
import { type ProviderSettings, providerConfigured } from './registry.ts';

/** Why a model answers a conversation: its `/model` pick, its pack's `model`, or LLM_MODEL. */
export type ModelSource = 'chat' | 'pack' | 'default';

/**
 * Which chat model answers a conversation (SPEC §14): the model picked with `/model` for the
 * chat or topic, else the pack's manifest `model`, else the default (LLM_MODEL). A pick is
 * one of the offered models (offered-models.ts: the configured providers' model lists)
 * when it is made, and is ignored once its provider is no longer configured (its key was
 * removed), so the pack's or the default answers.
 */
export function createModelChoice(
  config: ProviderSettings,
  catalog: ModelCatalog,
  defaultModel: ChatModel,
  offered: Pick<OfferedModels, 'offered' | 'known'>,
  log?: Logger,
) {
  const resolve = createModelResolver(config, catalog, defaultModel, log);
  const configured = (ref: string) =>
    providerConfigured(config, parseModelRef(ref, config.llm.provider).provider);
  const defaultRef = `${defaultModel.info.provider}:${defaultModel.info.model}`;

  return {
    /** The models `/model` offers, as `provider:model`, from the lists read last. */
    choices: (): readonly string[] => offered.known().map((m) => m.ref),

    /** The models `/model` and the web chat's picker offer, with their prices, read now. */
    offered: (signal?: AbortSignal) => offered.offered(signal),

    /** `provider:model` of the default model (LLM_MODEL). */
    defaultRef,

    /** The model that answers, and why. */
    answering(
      packModel: string | undefined,
      pick: string | null | undefined,
    ): { model: ChatModel; source: ModelSource } {
      if (pick && configured(pick)) return { model: resolve(pick), source: 'chat' };
      if (packModel) {
        const { provider } = parseModelRef(packModel, config.llm.provider);
        if (providerConfigured(config, provider))
          return { model: resolve(packModel), source: 'pack' };
      }
      return { model: defaultModel, source: 'default' };
    },
  };
}

export type ModelChoice = ReturnType<typeof createModelChoice>;
