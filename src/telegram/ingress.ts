import {
  createConcurrentSink,
  createRunner,
  createSource,
  createUpdateFetcher,
  type RunnerHandle,
} from '@grammyjs/runner';
import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import type { InboxRepo } from '../store/inbox-repo.ts';
import { pollingHint } from './errors.ts';

const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface IngressDeps {
  bot: Bot;
  inbox: InboxRepo;
  clock: Clock;
  log: Logger;
  /** Handles one update; must not throw (the pipeline reports its own failures). */
  onUpdate(update: Update): Promise<void> | void;
  /** Polling gave up for good (a revoked token, another instance polling). */
  onStopped?(error: unknown): void;
}

/**
 * Long polling with @grammyjs/runner behind a durable inbox. Each fetched batch is written
 * to `inbound_updates` before the fetcher returns it — and so before the next getUpdates
 * confirms the offset — so an update Telegram forgets is never one satchel has not stored.
 * A duplicate update id is dropped.
 */
export function createIngress(deps: IngressDeps) {
  const { bot, inbox, clock, log } = deps;
  let handle: RunnerHandle | undefined;

  const fetchUpdates = createUpdateFetcher(bot, {
    fetch: { timeout: 30, allowed_updates: ['message', 'edited_message', 'callback_query'] },
    silent: true,
  });
  // The runner's AbortSignal type comes from a polyfill package; take it from the fetcher.
  type RunnerSignal = Parameters<typeof fetchUpdates>[1];
  const supply = async (batchSize: number, signal: RunnerSignal): Promise<Update[]> => {
    await bot.init();
    const fetched = await fetchUpdates(batchSize, signal);
    const fresh = inbox.record(
      fetched.map((u) => ({ updateId: u.update_id, payload: u })),
      clock.now(),
    );
    if (fresh.length < fetched.length)
      log.debug(
        { event: 'tg_update_duplicate', count: fetched.length - fresh.length },
        'duplicates dropped',
      );
    return fresh.map((u) => u.payload as Update);
  };

  const consume = async (update: Update) => {
    try {
      await deps.onUpdate(update);
    } catch (error) {
      log.error(
        { event: 'tg_update_failed', updateId: update.update_id, err: error },
        'update handler failed',
      );
    }
  };

  return {
    /** Replays stored updates not marked done (younger than 24 h), then starts polling. */
    async start(): Promise<void> {
      const pending = inbox.pending(clock.now() - REPLAY_WINDOW_MS);
      if (pending.length > 0)
        log.info({ event: 'tg_inbox_replay', count: pending.length }, 'replaying stored updates');
      for (const row of pending) await consume(row.payload as Update);

      const source = createSource({ supply });
      const sink = createConcurrentSink({ consume }, async (error) => {
        log.error({ event: 'tg_update_failed', err: error }, 'update sink failed');
      });
      handle = createRunner(source, sink);
      handle.start();
      handle.task()?.catch((error: unknown) => {
        log.error(
          { event: 'tg_polling_stopped', hint: pollingHint(error), err: error },
          'polling stopped',
        );
        deps.onStopped?.(error);
      });
    },

    async stop(): Promise<void> {
      if (handle?.isRunning()) await handle.stop();
    },
  };
}

export type Ingress = ReturnType<typeof createIngress>;
