import type { Config } from '../config/config.ts';
import type { Pack } from '../packs/loader.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import {
  type ModelUse,
  type UnpricedModel,
  unpricedMessage,
  unpricedModels,
} from '../usage/unknown-prices.ts';
import { type Check, fail, warn } from './check.ts';

/**
 * One check per model in use that has no price (SPEC §14). Under a USD cap (QUOTA_DAILY_USD,
 * or a loaded pack's `daily_usd`) its calls are refused, so it fails and prints the lines to
 * paste into the owner's catalog; with no cap, or UNKNOWN_PRICE=allow, the calls go ahead and
 * it is a warning.
 */
export function checkPrices(
  config: Config,
  catalog: ModelCatalog,
  uses: readonly ModelUse[],
  packs: readonly Pack[],
): Check[] {
  const refused = config.models.unknownPrice === 'refuse' && usdCapApplies(config, packs);
  return unpricedModels(catalog, uses).map((model) => {
    const title = `price: ${unpricedMessage(model, catalog.file, config.models.unknownPrice)}`;
    const fix = `Give it input and output prices in ${catalog.file} (\`npx satchel models\` shows the catalog).`;
    if (!refused) return warn(title, fix);
    return fail(title, `Add these lines to ${catalog.file} with the provider's prices in them.`, [
      'Lines to add:',
      catalogLine(model),
    ]);
  });
}

/** Whether any USD cap is set: the owner's QUOTA_DAILY_USD or a loaded pack's `daily_usd`. */
function usdCapApplies(config: Config, packs: readonly Pack[]): boolean {
  return config.quota.dailyUsd > 0 || packs.some((p) => (p.manifest.quota?.daily_usd ?? 0) > 0);
}

/** The entry the owner pastes into the catalog, in the fields catalog-file.ts reads. */
function catalogLine(model: UnpricedModel): string {
  const fields = model.uses.every((use) => use === 'stt')
    ? '{audio_per_hour: 0.0}'
    : model.uses.every((use) => use === 'tts')
      ? '{tts_per_million_chars: 0.0}'
      : '{input: 0.0, cached_input: 0.0, output: 0.0}';
  return `${model.provider}:${model.model}: ${fields}   # fill in the provider's prices`;
}
