/**
 * Costs in USD from the list prices of the model catalog (`models.ts`): chat and vision calls
 * per million tokens, speech-to-text per hour of audio. A model without a known price costs
 * null: its calls are recorded with a null cost and flagged, never as $0.
 */
import { modelEntry } from './models.ts';

export type { TokenPrice } from './models.ts';

/** Cost of a chat or vision call, or null when the model's price is unknown. */
export function tokenCost(
  provider: string,
  model: string,
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number },
): number | null {
  const price = modelEntry(provider, model)?.tokens;
  if (!price) return null;
  const freshInput = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  return (
    (freshInput * price.input +
      usage.cachedInputTokens * price.cachedInput +
      usage.outputTokens * price.output) /
    1_000_000
  );
}

/** Cost of a transcription, or null when the model's price is unknown. */
export function audioCost(provider: string, model: string, seconds: number): number | null {
  const perHour = modelEntry(provider, model)?.audioPerHour;
  return perHour === undefined ? null : (perHour * seconds) / 3600;
}
