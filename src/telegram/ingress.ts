import {
  createConcurrentSink,
  createRunner,
  createSource,
  type RunnerHandle,
} from '@grammyjs/runner';
import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { Clock } from '../core/clock.ts';
import type { NumberedInbox } from '../core/inbox.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import { type ConsumerDeps, createConsumer, replayStored } from './consume.ts';
import { pollingHint, toChannelError } from './errors.ts';
import { createUpdateSupplier } from './update-supplier.ts';

export interface IngressDeps extends Pick<ConsumerDeps, 'localFiles' | 'owner'> {
  bot: Bot;
  inbox: NumberedInbox;
  clock: Clock;
  log: Logger;
  /** Takes one event (the pipeline's entry); must not throw (it reports its own failures). */
  onEvent(event: InboundEvent): void;
  /** Polling gave up for good (a revoked token, another instance polling). */
  onStopped?(error: unknown): void;
  /** Telegram answered for the first time (see createUpdateSupplier). */
  onConnected?(): void;
  /** Telegram answered again after it could not be reached (see createUpdateSupplier). */
  onReachable?(): void;
}

/**
 * Long polling with @grammyjs/runner behind a durable inbox (see createUpdateSupplier: an
 * update is stored before its offset is confirmed). Stored updates go to the pipeline
 * through the consumer (consume.ts), which settles malformed ones.
 */
export function createIngress(deps: IngressDeps) {
  const { bot, inbox, clock, log } = deps;
  let handle: RunnerHandle | undefined;
  let stopped = false;
  /** When Telegram last answered a getUpdates, and when it last brought an update. */
  let lastFetchAt: number | undefined;
  let lastUpdateAt: number | undefined;

  const consume = createConsumer(deps);

  return {
    /** Replays stored updates not marked done (younger than 24 h), then starts polling. */
    async start(): Promise<void> {
      await replayStored(deps, consume);
      if (stopped) return; // shutdown came during the replay

      const supply = createUpdateSupplier({
        bot,
        inbox,
        clock,
        log,
        ...(deps.onConnected ? { onConnected: deps.onConnected } : {}),
        ...(deps.onReachable ? { onReachable: deps.onReachable } : {}),
      });
      const source = createSource({
        supply: async (batchSize, signal) => {
          const updates = await supply(batchSize, signal);
          lastFetchAt = clock.now();
          if (updates.length > 0) lastUpdateAt = lastFetchAt;
          return updates;
        },
      });
      const sink = createConcurrentSink(
        { consume: (u: Update) => consume(u, u.update_id) },
        async (error) => {
          log.error({ event: 'tg_update_failed', err: error }, 'update sink failed');
        },
      );
      handle = createRunner(source, sink);
      handle.start();
      handle.task()?.catch((error: unknown) => {
        // Telegram's refusal (a wrong token, a second poller) as a ChannelError: logged with
        // its status and description, without a stack the operator has no use for.
        log.error(
          { event: 'tg_polling_stopped', hint: pollingHint(error), err: asChannelError(error) },
          'polling stopped',
        );
        deps.onStopped?.(error);
      });
    },

    /**
     * Read-only, for `/healthz`: whether the poller runs, when Telegram last answered a
     * getUpdates (the first poll is short, so this is set as soon as polling works; each
     * long poll ends within about 30 s, so it stays fresh while polling works) and when an
     * update last came in (undefined: none since start).
     */
    status(): { polling: boolean; lastFetchAt?: number; lastUpdateAt?: number } {
      return {
        polling: !stopped && handle?.isRunning() === true,
        ...(lastFetchAt === undefined ? {} : { lastFetchAt }),
        ...(lastUpdateAt === undefined ? {} : { lastUpdateAt }),
      };
    },

    /** Stops polling; an unanswered call or a retry wait in flight is aborted. */
    async stop(): Promise<void> {
      stopped = true;
      if (handle?.isRunning()) await handle.stop();
    },
  };
}

export type Ingress = ReturnType<typeof createIngress>;

/** A Bot API failure as the ChannelError it maps to, under the method grammY named. */
function asChannelError(error: unknown): unknown {
  const method = (error as { method?: unknown } | null)?.method;
  return toChannelError(typeof method === 'string' ? method : 'getUpdates', error);
}
