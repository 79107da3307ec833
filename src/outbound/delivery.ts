import type PQueue from 'p-queue';
import { type Clock, sleep } from '../core/clock.ts';
import { TelegramApiError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';

export interface DeliveryDeps {
  limiter: PQueue;
  clock: Clock;
  log: Logger;
  /** Waits between tries after a 5xx or network error; its length + 1 is the number of tries. */
  retryDelaysMs: readonly number[];
}

/**
 * One Bot API call as the outbox makes it: through the global limiter, waiting out a flood
 * wait (429) while holding the chat's queue — the caller runs inside that queue — and
 * retrying 5xx and network errors with backoff.
 */
export function createDelivery(deps: DeliveryDeps) {
  const { limiter, clock, log, retryDelaysMs } = deps;

  async function floodWait(to: Address, error: TelegramApiError): Promise<void> {
    const waitMs = (error.retryAfterSec ?? 1) * 1000;
    log.warn(
      { event: 'tg_flood_wait', chatId: to.chatId, method: error.method, waitMs },
      'flood wait: pausing this chat',
    );
    await sleep(clock, waitMs);
  }

  return {
    /** A call that must land: after a flood wait it is made again; transient errors retry. */
    async required<T>(to: Address, fn: () => Promise<T>): Promise<T> {
      for (let attempt = 0; ; ) {
        try {
          return await limiter.add(fn);
        } catch (error) {
          if (!(error instanceof TelegramApiError)) throw error;
          if (error.isFloodWait) {
            await floodWait(to, error);
            continue;
          }
          const delay = retryDelaysMs[attempt++];
          if (!error.transient || delay === undefined) throw error;
          log.warn(
            {
              event: 'tg_send_retry',
              chatId: to.chatId,
              method: error.method,
              attempt,
              err: error,
            },
            'retrying',
          );
          await sleep(clock, delay);
        }
      }
    },

    /**
     * A call that may be skipped (typing, drafts, live edits): a flood wait still pauses the
     * chat, but the call is not repeated — the next one carries newer content. Other
     * failures are logged and swallowed. Resolves with undefined when skipped.
     */
    async optional<T>(to: Address, what: string, fn: () => Promise<T>): Promise<T | undefined> {
      try {
        return await limiter.add(fn);
      } catch (error) {
        if (error instanceof TelegramApiError && error.isFloodWait) await floodWait(to, error);
        else log.debug({ event: 'tg_side_call_failed', chatId: to.chatId, what, err: error }, what);
        return undefined;
      }
    },
  };
}

export type Delivery = ReturnType<typeof createDelivery>;

/** Runs `html`, and on Telegram's "can't parse entities" runs `plain` instead. */
export async function withPlainFallback<T>(
  html: () => Promise<T>,
  plain: () => Promise<T>,
  onFallback: () => void,
): Promise<T> {
  try {
    return await html();
  } catch (error) {
    if (!(error instanceof TelegramApiError) || !error.isParseError) throw error;
    onFallback();
    return plain();
  }
}
