import {
  createConcurrentSink,
  createRunner,
  createSource,
  type RunnerHandle,
} from '@grammyjs/runner';
import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import type { InboxRepo } from '../store/inbox-repo.ts';
import { pollingHint } from './errors.ts';
import { translateUpdate } from './translate.ts';
import { parseUpdate } from './update-schema.ts';
import { createUpdateSupplier } from './update-supplier.ts';

const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface IngressDeps {
  bot: Bot;
  inbox: InboxRepo;
  clock: Clock;
  log: Logger;
  /** Takes one event (the pipeline's entry); must not throw (it reports its own failures). */
  onEvent(event: InboundEvent): void;
  /** Polling gave up for good (a revoked token, another instance polling). */
  onStopped?(error: unknown): void;
  /** Telegram answered for the first time (see createUpdateSupplier). */
  onConnected?(): void;
}

/**
 * Long polling with @grammyjs/runner behind a durable inbox (see createUpdateSupplier: an
 * update is stored before its offset is confirmed). A malformed update is settled here —
 * logged as `tg_update_malformed` and marked done — so it never reaches the pipeline and is
 * never replayed.
 */
export function createIngress(deps: IngressDeps) {
  const { bot, inbox, clock, log } = deps;
  let handle: RunnerHandle | undefined;
  let stopped = false;

  /** Hands a stored update to the pipeline; `updateId` is its inbox key. Never throws. */
  const consume = async (update: unknown, updateId: number) => {
    const parsed = parseUpdate(update);
    if (!parsed.ok) {
      settleMalformed(updateId, parsed.problem);
      return;
    }
    try {
      const event = translateUpdate(update, clock.now());
      if (event) deps.onEvent(event);
      else {
        // A kind satchel does not handle (a poll, an edited photo): nothing to answer.
        log.debug({ event: 'tg_update_ignored', updateId }, 'unsupported update');
        inbox.markDone([updateId], clock.now());
      }
    } catch (error) {
      log.error({ event: 'tg_update_failed', updateId, err: error }, 'update handler failed');
    }
  };

  function settleMalformed(updateId: number, problem: string): void {
    log.warn({ event: 'tg_update_malformed', updateId, problem }, 'malformed update skipped');
    try {
      inbox.markDone([updateId], clock.now());
    } catch (error) {
      // Stays pending: the next start finds it malformed again and settles it then.
      log.error({ event: 'tg_update_failed', updateId, err: error }, 'could not settle update');
    }
  }

  return {
    /** Replays stored updates not marked done (younger than 24 h), then starts polling. */
    async start(): Promise<void> {
      const pending = inbox.pending(clock.now() - REPLAY_WINDOW_MS);
      if (pending.length > 0)
        log.info({ event: 'tg_inbox_replay', count: pending.length }, 'replaying stored updates');
      for (const row of pending) await consume(row.payload, row.updateId);
      if (stopped) return; // shutdown came during the replay

      const supply = createUpdateSupplier({
        bot,
        inbox,
        clock,
        log,
        ...(deps.onConnected ? { onConnected: deps.onConnected } : {}),
      });
      const source = createSource({ supply });
      const sink = createConcurrentSink(
        { consume: (u: Update) => consume(u, u.update_id) },
        async (error) => {
          log.error({ event: 'tg_update_failed', err: error }, 'update sink failed');
        },
      );
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

    /** Stops polling; an unanswered call or a retry wait in flight is aborted. */
    async stop(): Promise<void> {
      stopped = true;
      if (handle?.isRunning()) await handle.stop();
    },
  };
}

export type Ingress = ReturnType<typeof createIngress>;
