import type { Logger } from '../core/ports.ts';
import type { ModelCatalog } from './catalog.ts';

/**
 * A model satchel will call, and what for (`stt` is priced per audio hour, `tts` per million
 * characters, the rest per token).
 */
export interface ModelUse {
  provider: string;
  model: string;
  use: 'chat' | 'fallback' | 'vision' | 'stt' | 'tts' | `pack ${string}`;
}

/** A model without a list price, with every use it is configured for. */
export interface UnpricedModel {
  provider: string;
  model: string;
  uses: ModelUse['use'][];
}

/**
 * The models among `uses` that the catalog has no price for (per token, per audio hour for
 * speech-to-text, per million characters for text to speech), each once with all its uses, in the order first seen.
 */
export function unpricedModels(catalog: ModelCatalog, uses: readonly ModelUse[]): UnpricedModel[] {
  const found = new Map<string, UnpricedModel>();
  for (const { provider, model, use } of uses) {
    if (catalog.priced(provider, model, use === 'stt' || use === 'tts' ? use : 'llm')) continue;
    const key = `${provider}:${model}`;
    const known = found.get(key);
    if (known) {
      if (!known.uses.includes(use)) known.uses.push(use);
    } else found.set(key, { provider, model, uses: [use] });
  }
  return [...found.values()];
}

/**
 * What an unpriced model means for the owner, in one sentence (logs, `satchel doctor`): under
 * a USD cap its calls are refused unless UNKNOWN_PRICE=allow, which books them at an unknown
 * cost.
 */
export function unpricedMessage(
  model: UnpricedModel,
  catalogFile: string,
  unknownPrice: 'refuse' | 'allow' = 'refuse',
): string {
  const effect =
    unknownPrice === 'allow'
      ? 'its calls show as unknown cost in /usage and the dashboard and are NOT counted against a USD cap (UNKNOWN_PRICE=allow)'
      : "under a USD cap (QUOTA_DAILY_USD or a pack's daily_usd) its calls are refused";
  return (
    `no known price for ${model.provider}:${model.model} (${model.uses.join(', ')}): ${effect}. ` +
    `Add its price to ${catalogFile}.`
  );
}

/**
 * Logs `model_price_unknown` once per unpriced model among `uses`. Meant to be called once
 * at start; returns what it warned about.
 */
export function warnUnknownPrices(
  log: Logger,
  catalog: ModelCatalog,
  uses: readonly ModelUse[],
  unknownPrice: 'refuse' | 'allow' = 'refuse',
): UnpricedModel[] {
  const unpriced = unpricedModels(catalog, uses);
  for (const model of unpriced)
    log.warn(
      {
        event: 'model_price_unknown',
        provider: model.provider,
        model: model.model,
        uses: model.uses,
      },
      unpricedMessage(model, catalog.file, unknownPrice),
    );
  return unpriced;
}
