/**
 * How the agent retries a model call that failed transiently (429, 5xx, network, a broken or
 * cut-off answer) before any of its text reached the user.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /**
   * The wait before retry number `retry` (0 for the first), given the wait the provider asked
   * for, if it did; undefined gives up on this model at once (the fallback, if any, is next).
   */
  delayMs(retry: number, retryAfterMs: number | undefined): number | undefined;
}

/** A provider that asks for a longer wait than this is not waited for: the turn moves on. */
export const MAX_RETRY_AFTER_MS = 20_000;
/** The first backoff when the provider gave no Retry-After; it doubles on each retry. */
export const BASE_BACKOFF_MS = 500;

/**
 * Two retries: after the provider's Retry-After when it gave one (up to 20 s), otherwise after
 * 0.5 s and 1 s.
 */
export const defaultRetryPolicy: RetryPolicy = {
  retries: 2,
  delayMs(retry, retryAfterMs) {
    if (retryAfterMs === undefined) return BASE_BACKOFF_MS * 2 ** retry;
    return retryAfterMs <= MAX_RETRY_AFTER_MS ? retryAfterMs : undefined;
  },
};
