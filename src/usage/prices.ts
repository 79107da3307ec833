/**
 * Costs in USD from the model catalog (catalog.ts): chat and vision calls per million
 * tokens (the cached part of the prompt at `cachedInput`), speech-to-text per hour of audio,
 * search per call, text-to-speech per million characters. A model without a price costs null: its calls are recorded with a null
 * cost and flagged, never as $0.
 */
import type { ModelEntry } from './models.ts';

export type { TokenPrice } from './models.ts';

export interface TokenCounts {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

/** Cost of a chat or vision call, or null when the model has no token price. */
export function tokenCost(entry: ModelEntry | undefined, usage: TokenCounts): number | null {
  const price = entry?.tokens;
  if (!price) return null;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (
    (fresh * price.input + cached * price.cachedInput + usage.outputTokens * price.output) /
    1_000_000
  );
}

/** What the cached part of the prompt saved against the full input price (0 without one). */
export function cacheSaving(entry: ModelEntry | undefined, cachedInputTokens: number): number {
  const price = entry?.tokens;
  if (!price) return 0;
  return (cachedInputTokens * Math.max(0, price.input - price.cachedInput)) / 1_000_000;
}

/** Cost of a transcription, or null when the model has no audio price. */
export function audioCost(entry: ModelEntry | undefined, seconds: number): number | null {
  const perHour = entry?.audioPerHour;
  return perHour === undefined ? null : (perHour * seconds) / 3600;
}

/** Cost of speaking `characters`, or null when the model has no text-to-speech price. */
export function ttsCost(entry: ModelEntry | undefined, characters: number): number | null {
  const perMillion = entry?.ttsPerMillionChars;
  return perMillion === undefined ? null : (perMillion * characters) / 1_000_000;
}

/** Cost of one search call, or null when the service has no price per call. */
export function searchCost(entry: ModelEntry | undefined): number | null {
  return entry?.perCall ?? null;
}
