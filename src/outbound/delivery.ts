import { type Clock, sleep } from '../core/clock.ts';
import { ChannelError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { Limiter, Priority } from './limiter.ts';

export interface DeliveryDeps {
  limiter: Limiter;
  clock: Clock;
  log: Logger;
  /** Waits between tries after a 5xx or network error; its length + 1 is the number of tries. */
  retryDelaysMs: readonly number[];
  /** Shutdown: waits (flood waits, retry backoff, a slot) end at once. */
  signal: AbortSignal;
  /** The channel's platform: its log events are named after it (`tg_flood_wait`). */
  platform: string;
}

/**
 * One channel call as the outbox makes it: a slot from the global limiter, then the call.
 * `rate_limited` pauses the whole chat — every method, until `retryAfterMs` has passed — and
 * `transient` failures are retried with backoff. Reads only ChannelError kinds.
 */
export function createDelivery(deps: DeliveryDeps) {
  const { limiter, clock, log, retryDelaysMs, signal, platform } = deps;
  /** Chats under a flood wait, and when it ends. */
  const pausedUntil = new Map<string, number>();

  const pauseLeft = (to: Address): number => {
    const until = pausedUntil.get(to.chatId);
    if (until === undefined) return 0;
    const left = until - clock.now();
    if (left <= 0) pausedUntil.delete(to.chatId);
    return Math.max(0, left);
  };

  function pause(to: Address, error: ChannelError): void {
    const waitMs = error.retryAfterMs ?? 1000;
    const until = clock.now() + waitMs;
    pausedUntil.set(to.chatId, Math.max(until, pausedUntil.get(to.chatId) ?? 0));
    log.warn(
      { event: `${platform}_flood_wait`, chatId: to.chatId, method: error.method, waitMs },
      'flood wait: pausing this chat',
    );
  }

  async function once<T>(
    to: Address,
    priority: Priority,
    fn: () => Promise<T>,
    cancel: AbortSignal = signal,
  ): Promise<T> {
    for (let left = pauseLeft(to); left > 0; left = pauseLeft(to)) await sleep(clock, left, cancel);
    const release = await limiter.acquire(priority, cancel);
    try {
      return await fn();
    } catch (error) {
      if (error instanceof ChannelError && error.kind === 'rate_limited') pause(to, error);
      throw error;
    } finally {
      release();
    }
  }

  return {
    /**
     * A call that must land: after a flood wait it is made again; `transient` failures are
     * tried `retryDelaysMs.length + 1` times. Rejects with the last error, or when shut down.
     */
    async required<T>(
      to: Address,
      fn: () => Promise<T>,
      priority: Priority = 'message',
    ): Promise<T> {
      for (let attempt = 0; ; ) {
        try {
          return await once(to, priority, fn);
        } catch (error) {
          if (!(error instanceof ChannelError)) throw error;
          if (error.kind === 'rate_limited') continue;
          const delay = retryDelaysMs[attempt++];
          if (error.kind !== 'transient' || delay === undefined) throw error;
          log.warn(
            {
              event: `${platform}_send_retry`,
              chatId: to.chatId,
              method: error.method,
              attempt,
              err: error,
            },
            'retrying',
          );
          await sleep(clock, delay, signal);
        }
      }
    },

    /**
     * A call that may be skipped (typing, drafts, live edits): made once, never repeated —
     * the next one carries newer content. Skipped at once while the chat is paused, and
     * dropped while still waiting for a slot when `dropped` fires. Failures are logged and
     * swallowed; resolves with undefined when skipped.
     */
    async optional<T>(
      to: Address,
      what: string,
      fn: () => Promise<T>,
      priority: Priority,
      dropped?: AbortSignal,
    ): Promise<T | undefined> {
      if (signal.aborted || pauseLeft(to) > 0) return undefined;
      const cancel = dropped ? AbortSignal.any([signal, dropped]) : signal;
      try {
        return await once(to, priority, fn, cancel);
      } catch (error) {
        if (cancel.aborted) return undefined;
        if (!(error instanceof ChannelError && error.kind === 'rate_limited'))
          log.debug(
            { event: `${platform}_side_call_failed`, chatId: to.chatId, what, err: error },
            what,
          );
        return undefined;
      }
    },

    /** Whether a chat is under a flood wait now. */
    paused: (to: Address): boolean => pauseLeft(to) > 0,
  };
}

export type Delivery = ReturnType<typeof createDelivery>;

/** Runs `formatted`, and when the channel refuses its markup (`bad_markup`) runs `plain` instead. */
export async function withPlainFallback<T>(
  formatted: () => Promise<T>,
  plain: () => Promise<T>,
  onFallback: () => void,
): Promise<T> {
  try {
    return await formatted();
  } catch (error) {
    if (!(error instanceof ChannelError) || error.kind !== 'bad_markup') throw error;
    onFallback();
    return plain();
  }
}
