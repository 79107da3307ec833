import { sql } from 'drizzle-orm';
import { usageEvents as u } from '../store/schema.ts';

/**
 * Sums of ledger rows, in the shape `/api/usage` shows them. `cost_usd` is the sum of the
 * calls whose price was known, and null when none was: a model without a price never
 * counts as $0. `tokens` is input + output; `cached_input_tokens` is the part of
 * `input_tokens` the provider served from its prompt cache.
 */
export interface UsageSums {
  calls: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  tokens: number;
  cost_usd: number | null;
  unknown_price_calls: number;
}

/** The SQL of a UsageSums (without `tokens`) over the rows a query selects. */
export const sumColumns = {
  // A row that is no call (`counted` = 0: nothing came back) adds nothing: it has no usage.
  calls: sql<number>`coalesce(sum(${u.counted}), 0)`.as('calls'),
  input_tokens: sql<number>`coalesce(sum(${u.inputTokens}), 0)`.as('input_tokens'),
  cached_input_tokens: sql<number>`coalesce(sum(${u.cachedInputTokens}), 0)`.as(
    'cached_input_tokens',
  ),
  output_tokens: sql<number>`coalesce(sum(${u.outputTokens}), 0)`.as('output_tokens'),
  cost_usd: sql<number | null>`sum(${u.costUsd})`.as('cost_usd'),
  unknown_price_calls: sql<number>`coalesce(sum(${u.counted} and ${u.priceKnown} = 0), 0)`.as(
    'unknown_price_calls',
  ),
};

/** A row of `sumColumns` with its `tokens` added. */
export const withTokens = <T extends Omit<UsageSums, 'tokens'>>(
  row: T,
): T & { tokens: number } => ({
  ...row,
  tokens: row.input_tokens + row.output_tokens,
});

export const zeroSums = (): UsageSums => ({
  calls: 0,
  input_tokens: 0,
  cached_input_tokens: 0,
  output_tokens: 0,
  tokens: 0,
  cost_usd: null,
  unknown_price_calls: 0,
});

/** Adds `b` into `a`; a cost stays null only while neither side had a priced call. */
export function addSums(a: UsageSums, b: UsageSums): void {
  a.calls += b.calls;
  a.input_tokens += b.input_tokens;
  a.cached_input_tokens += b.cached_input_tokens;
  a.output_tokens += b.output_tokens;
  a.tokens += b.tokens;
  a.unknown_price_calls += b.unknown_price_calls;
  if (b.cost_usd !== null) a.cost_usd = (a.cost_usd ?? 0) + b.cost_usd;
}
