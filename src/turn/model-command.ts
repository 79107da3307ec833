import { encodeButton } from '../core/button-data.ts';
import type { ChatModel } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import type { ModelChoice, ModelSource } from '../providers/model-choice.ts';
import type { Router } from '../routing/router.ts';

/** How a model without a known price is marked in the list (its calls cost an unknown amount). */
export const UNPRICED = '(no price)';

const refOf = (model: ChatModel) => `${model.info.provider}:${model.info.model}`;

const WHY: Record<ModelSource, string> = {
  chat: 'picked with /model for this chat',
  pack: "the pack's model",
  default: 'the default',
};

export interface ModelCommandDeps {
  router: Pick<Router, 'modelPick' | 'pickModel'>;
  models: ModelChoice;
}

/**
 * `/model` (SPEC §14): which model answers here, and the buttons to pick another for this
 * chat or topic; `/model <provider:model>` picks by name, `/model default` drops the pick.
 */
export function createModelCommand(deps: ModelCommandDeps) {
  const { router, models } = deps;

  /** The model that answers at `address` for a pack with `packModel`, and why. */
  const answering = (address: Address, packModel: string | undefined) =>
    models.answering(packModel, router.modelPick(address));

  /** "openai:gpt-4.1 (the pack's model)": what /status and the confirmations say. */
  function describe(address: Address, packModel: string | undefined): string {
    const { model, source } = answering(address, packModel);
    return `${refOf(model)} (${WHY[source]})`;
  }

  async function menu(address: Address, packModel: string | undefined): Promise<OutboundText> {
    const offered = await models.offered();
    const now = `This chat is answered by ${describe(address, packModel)}.`;
    if (offered.length === 0)
      return plain(
        `${now} No other model can be picked: the configured providers offer no chat model.`,
      );
    const pick = router.modelPick(address);
    const fallback = models.answering(packModel, undefined).model;
    return {
      text: `${now} Pick a model for this chat:`,
      format: 'plain',
      keyboard: [
        // Priced first; an unpriced one is marked (SPEC §14).
        ...offered.map(({ ref, price }) => [
          {
            text: `${ref === pick ? '✓ ' : ''}${ref}${price ? '' : ` ${UNPRICED}`}`,
            data: encodeButton({ type: 'model', ref }),
          },
        ]),
        [
          {
            text: `${pick ? '' : '✓ '}Default (${refOf(fallback)})`,
            data: encodeButton({ type: 'model', ref: 'default' }),
          },
        ],
      ],
    };
  }

  /** Picks `ref` (an offered model, or `default`) for `address`; what to tell the user. */
  function pick(address: Address, ref: string, packModel: string | undefined): OutboundText {
    if (ref === 'default') {
      router.pickModel(address, null);
      return plain(`Back to the default here: ${describe(address, packModel)}.`);
    }
    const wanted = encodeButton({ type: 'model', ref });
    const found = models
      .choices()
      .find((c) => encodeButton({ type: 'model', ref: c }) === wanted || modelName(c) === ref);
    if (!found)
      return plain(`I can't use ${ref} here. Send /model to see the models you can pick.`);
    router.pickModel(address, found);
    return plain(`This chat now uses ${found}. Send /model default to go back.`);
  }

  return {
    describe,
    /** The `/model` command with its arguments (a name is looked up in the lists read now). */
    async command(
      address: Address,
      args: string,
      packModel: string | undefined,
    ): Promise<OutboundText> {
      const ref = args.trim();
      if (!ref) return menu(address, packModel);
      await models.offered();
      return pick(address, ref, packModel);
    },
    /** A `/model` button pressed (its data decoded to `ref`). */
    pressed: pick,
  };
}

export type ModelCommand = ReturnType<typeof createModelCommand>;

/** The model part of `provider:model`, so `/model gpt-4.1` finds `openai:gpt-4.1`. */
function modelName(ref: string): string {
  return ref.slice(ref.indexOf(':') + 1);
}
