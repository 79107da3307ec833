import type { Clock } from '../core/clock.ts';
import { isAbort } from '../core/errors.ts';
import type { Ledger, PaidCall } from './ledger.ts';

/** What a successful call used, as its ledger row counts it. */
export type CallUse = Partial<
  Pick<
    PaidCall,
    | 'inputTokens'
    | 'cachedInputTokens'
    | 'outputTokens'
    | 'audioSeconds'
    | 'images'
    | 'characters'
    | 'costUsd'
  >
>;

/**
 * One paid call, timed and booked: its ledger row says what it used when it succeeded
 * (`use`), or why it failed (`aborted` when stopped) with nothing used. Resolves or rejects
 * as the call did; the quota gate is the caller's, before.
 */
export async function bookedCall<T>(
  deps: { ledger: Pick<Ledger, 'record'>; clock: Clock },
  row: Pick<PaidCall, 'kind' | 'provider' | 'model' | 'scope'>,
  call: () => Promise<T>,
  use: (result: T) => CallUse,
): Promise<T> {
  const started = deps.clock.now();
  try {
    const result = await call();
    deps.ledger.record({ ...row, ...use(result), latencyMs: deps.clock.now() - started, ok: true });
    return result;
  } catch (error) {
    const reason = isAbort(error) ? 'aborted' : String((error as Error).message);
    deps.ledger.record({ ...row, latencyMs: deps.clock.now() - started, ok: false, error: reason });
    throw error;
  }
}
