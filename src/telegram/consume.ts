import type { Bot } from 'grammy';
import { nextTask } from '../core/background.ts';
import type { Clock } from '../core/clock.ts';
import { MAX_NESTING, nestedDeeperThan } from '../core/depth.ts';
import type { NumberedInbox } from '../core/inbox.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import { type BotIdentity, botIdFromToken } from './addressing.ts';
import { translateParsed } from './translate.ts';
import { parseUpdate } from './update-schema.ts';

export interface ConsumerDeps {
  /** The bot: its token says its id, and once getMe answered, its username. */
  bot?: Pick<Bot, 'token' | 'isInited' | 'botInfo'>;
  inbox: NumberedInbox;
  clock: Clock;
  log: Logger;
  /** Takes one event (the pipeline's entry); must not throw (it reports its own failures). */
  onEvent(event: InboundEvent): void;
  /** TELEGRAM_LOCAL_FILES: videos are taken in as documents (see translate.ts). */
  localFiles?: boolean;
  /** The owner's id: their words in a quote are not someone else's (see translate-quote.ts). */
  owner?: number | undefined;
}

/**
 * Hands a stored update to the pipeline; `updateId` is its inbox key. Shared by long polling
 * and the webhook. A malformed update is settled here — logged as `tg_update_malformed` and
 * marked done — so it never reaches the pipeline and is never replayed; a kind satchel does
 * not handle is marked done too. An update nested deeper than MAX_NESTING is malformed
 * before anything recursive reads it (the schema would overflow the stack). Never throws.
 */
export function createConsumer(deps: ConsumerDeps) {
  const { inbox, clock, log } = deps;

  function settleMalformed(updateId: number, problem: string): void {
    log.warn({ event: 'tg_update_malformed', updateId, problem }, 'malformed update skipped');
    try {
      inbox.markDone([updateId], clock.now());
    } catch (error) {
      // Stays pending: the next start finds it malformed again and settles it then.
      log.error({ event: 'tg_update_failed', updateId, err: error }, 'could not settle update');
    }
  }

  /** Updates handed over in the current task (a getUpdates answer comes as one burst). */
  let burst = 0;

  return async (update: unknown, updateId: number): Promise<void> => {
    // Each update of a getUpdates answer starts on a task of its own, in order, and each turn
    // runs on to its model request before the next one starts. Started together, the turns
    // would take turns at every await, and every request of the batch would leave only once
    // all of them were prepared. The first of a burst has nothing to wait for: it starts now.
    if (burst++ === 0) setImmediate(() => (burst = 0));
    else await nextTask();
    if (nestedDeeperThan(update, MAX_NESTING)) {
      settleMalformed(updateId, `nested deeper than ${MAX_NESTING} levels`);
      return;
    }
    const parsed = parseUpdate(update);
    if (!parsed.ok) {
      settleMalformed(updateId, parsed.problem);
      return;
    }
    try {
      const options = { localFiles: deps.localFiles === true, owner: deps.owner };
      const event = translateParsed(parsed.update, clock.now(), identity(deps.bot), options);
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
}

/** Stored updates older than this are not replayed. */
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Hands the stored updates not marked done (younger than 24 h) to `consume`, in order: what
 * an earlier run stored but did not answer. Long polling and the webhook both start with it.
 */
export async function replayStored(
  deps: Pick<ConsumerDeps, 'inbox' | 'clock' | 'log'>,
  consume: (update: unknown, updateId: number) => Promise<void>,
): Promise<void> {
  const pending = deps.inbox.pending(deps.clock.now() - REPLAY_WINDOW_MS);
  if (pending.length > 0)
    deps.log.info({ event: 'tg_inbox_replay', count: pending.length }, 'replaying stored updates');
  for (const row of pending) await consume(row.payload, row.updateId);
}

/**
 * Who the bot is now. A replay at start comes before getMe: its username is not known then,
 * and any mention or command is taken as the bot's (see addressing.ts).
 */
function identity(bot: ConsumerDeps['bot']): BotIdentity | undefined {
  if (!bot) return undefined;
  return {
    id: botIdFromToken(bot.token),
    username: bot.isInited() ? bot.botInfo.username : undefined,
  };
}
