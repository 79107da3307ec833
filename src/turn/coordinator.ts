import type { Update } from 'grammy/types';
import { background } from '../core/background.ts';
import {
  AbortedError,
  GENERIC_FAILURE,
  SatchelError,
  STOPPED,
  StopRequested,
} from '../core/errors.ts';
import type { ModelInfo } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent } from '../core/types.ts';
import type { createAllowlist } from '../inbound/allowlist.ts';
import { createBatcher } from '../inbound/batcher.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import type { DispatchOptions } from '../outbound/outbox.ts';
import { pickedPack, pickerMessage } from '../routing/picker.ts';
import type { SessionRepo } from '../store/session-repo.ts';
import { translateUpdate } from '../telegram/translate.ts';
import { saidText } from '../tools/buttons.ts';
import type { Calendar } from '../usage/calendar.ts';
import type { Caps } from '../usage/quota.ts';
import type { UsageTotals } from '../usage/totals.ts';
import { createActors } from './actors.ts';
import { type ChatTurnDeps, runChatTurn } from './chat-turn.ts';
import { createCommands } from './commands.ts';
import { sourceKey } from './inputs.ts';

export const NOT_AUTHORIZED =
  'Sorry, this is a private assistant and you are not authorized to use it.';
export const BUSY =
  'I am still working on your earlier messages, so I did not take this one. Please send it again in a moment.';
/** What the user hears when they send something satchel cannot take in. */
export const cannotTake = (what: string) =>
  `I can't watch ${what === 'video' ? 'videos' : `${what}s`} yet. Tell me in words what it shows, or send a photo or a voice message.`;
/** The pack a conversation uses when no pack is installed. */
export const CORE_PACK = 'core';
/** Turns that may wait behind the running one in a conversation. */
const MAX_WAITING = 5;

type Callback = Extract<InboundEvent, { kind: 'callback' }>;

export interface CoordinatorDeps extends ChatTurnDeps {
  transaction: <T>(fn: () => T) => T;
  allowlist: ReturnType<typeof createAllowlist>;
  batchWindowMs: number;
  sessions: SessionRepo;
  model: ModelInfo;
  totals: UsageTotals;
  calendar: Calendar;
  caps: Caps;
}

/**
 * The turn coordinator: every inbound event goes through here, in the order of SPEC §2 —
 * allowlist gate, classify, batch, then the conversation's actor runs the turn. Whatever
 * happens, the user's update is marked done only together with what was written in reply,
 * so a crash leaves it to be replayed and never answered twice.
 */
export function createCoordinator(deps: CoordinatorDeps) {
  const { clock, log, inbox, outbox, router, packs } = deps;
  const actors = createActors({ maxWaiting: MAX_WAITING });
  const batcher = createBatcher({ windowMs: deps.batchWindowMs, clock, emit: submit });
  const commands = createCommands({
    ...deps,
    activePack,
    waiting: (address) => actors.waiting(addressKey(address)),
  });
  /** Messages waiting for a pack to be picked, per conversation; their updates stay pending. */
  const parked = new Map<string, InboundEvent[]>();

  /** Writes a reply and marks the updates done in one transaction, then sends the reply. */
  async function replyAndFinish(
    to: Address,
    message: OutboundText | undefined,
    updateIds: number[],
    options: DispatchOptions = {},
  ): Promise<void> {
    const ids = deps.transaction(() => {
      const written = message ? outbox.write(to, message) : [];
      inbox.markDone(updateIds, clock.now());
      return written;
    });
    await outbox.dispatch(ids, options);
  }

  /** The pack for this conversation: bound, the only one, or named by its forum topic. */
  function activePack(event: InboundEvent): string | undefined {
    const bound = router.boundPack(event.address);
    if (bound && (packs.get(bound) || (bound === CORE_PACK && packs.list().length === 0)))
      return bound;
    const all = packs.list();
    if (all.length === 0) return CORE_PACK;
    if (all.length === 1) return all[0]!.name;
    return event.topicName ? packs.byLabel(event.topicName)?.name : undefined;
  }

  function handleUpdate(update: Update): void {
    const event = translateUpdate(update, clock.now());
    if (!event) {
      log.debug({ event: 'tg_update_ignored', updateId: update.update_id }, 'unsupported update');
      inbox.markDone([update.update_id], clock.now());
      return;
    }
    const decision = deps.allowlist.check(event);
    if (decision !== 'allow') {
      log.warn(
        {
          event: 'tg_auth_denied',
          userId: event.senderId,
          chatId: event.address.chatId,
          kind: event.kind,
        },
        'sender not on the allowlist',
      );
      const reply = decision === 'deny-and-reply' ? plain(NOT_AUTHORIZED) : undefined;
      background(
        log,
        'reply_failed',
        replyAndFinish(event.address, reply, event.updateIds, { priority: 'stranger' }),
      );
      return;
    }
    switch (event.kind) {
      case 'command':
        if (event.command === 'stop') stop(event);
        else batcher.push(event);
        return;
      case 'text':
        batcher.push(event);
        return;
      case 'callback':
        onButton(event);
        return;
      case 'topic':
        bindTopic(event);
        inbox.markDone(event.updateIds, clock.now());
        return;
      case 'voice':
      case 'photo':
      case 'document':
      case 'album':
      case 'edited':
      case 'unsupported':
        // In order with the conversation's other messages; answered in runEvents.
        batcher.push(event);
        return;
      default: {
        // Every kind is handled above; a new one lands here until it is.
        const other = event as InboundEvent;
        log.debug({ event: 'tg_update_ignored', kind: other.kind }, 'kind not handled');
        inbox.markDone(other.updateIds, clock.now());
      }
    }
  }

  /**
   * /stop skips the queue: it aborts the running turn, which tells the user it stopped, and
   * drops texts still gathering in the batch window, which have not reached the model.
   */
  function stop(event: Extract<InboundEvent, { kind: 'command' }>): void {
    const key = addressKey(event.address);
    const held = batcher.take(key).flatMap((e) => e.updateIds);
    const stopped = actors.abortRunning(key, new StopRequested());
    log.info({ event: 'turn_stop', address: key, stopped, dropped: held.length }, '/stop');
    const updateIds = [...event.updateIds, ...held];
    if (stopped) inbox.markDone(updateIds, clock.now());
    else if (held.length > 0)
      background(log, 'reply_failed', replyAndFinish(event.address, plain(STOPPED), updateIds));
    else submit([event]);
  }

  /**
   * Button presses. An `ask_user` answer goes straight to the waiting turn (it is running
   * in the queue this press would wait in); a `send_message` button is sent on as if the
   * user typed its label; the picker runs in the conversation's queue.
   */
  function onButton(event: Callback): void {
    if (deps.asks.isAnswer(event.data)) {
      // Answers only where it was asked, by whom it was asked; anyone else gets a notice.
      const notice = deps.asks.answer(event.data, {
        address: event.address,
        userId: event.senderId,
      });
      background(log, 'callback_answer_failed', outbox.answerCallback(event.callbackId, notice));
      inbox.markDone(event.updateIds, clock.now());
      return;
    }
    background(log, 'callback_answer_failed', outbox.answerCallback(event.callbackId));
    const said = saidText(event.data);
    if (said === undefined) submit([event]);
    else batcher.push({ ...event, kind: 'text', text: said });
  }

  /** A topic created or renamed with a pack's name becomes that pack's workspace. */
  function bindTopic(event: Extract<InboundEvent, { kind: 'topic' }>): void {
    const pack = packs.byLabel(event.name);
    if (!pack || event.address.threadId === undefined) return;
    if (router.boundPack(event.address) === pack.name) return;
    router.resolve(event.address, pack.name);
    log.info(
      { event: 'tg_topic_bound', address: addressKey(event.address), pack: pack.name },
      'topic bound',
    );
  }

  function submit(events: InboundEvent[]): void {
    const first = events[0];
    if (!first) return;
    const outcome = actors.submit(addressKey(first.address), (signal) =>
      // Even the failure reply can fail (the database is gone at shutdown): log, never throw.
      runEvents(events, signal).catch((error: unknown) =>
        log.error(
          { event: 'turn_unhandled', address: addressKey(first.address), err: error },
          'turn failed twice',
        ),
      ),
    );
    if (outcome === 'busy') {
      log.warn(
        { event: 'turn_rejected_busy', address: addressKey(first.address) },
        'conversation queue full',
      );
      background(
        log,
        'reply_failed',
        replyAndFinish(
          first.address,
          plain(BUSY),
          events.flatMap((e) => e.updateIds),
        ),
      );
    }
  }

  async function runEvents(events: InboundEvent[], signal: AbortSignal): Promise<void> {
    const first = events[0]!;
    const updateIds = events.flatMap((e) => e.updateIds);
    try {
      if (first.kind === 'callback') return await onCallback(first, signal);
      if (first.kind === 'command') {
        const outcome = await commands.run(first, signal);
        if ('reply' in outcome)
          return await replyAndFinish(first.address, outcome.reply, updateIds);
        const { pack, text, pinned } = outcome.turn;
        const inputs = [{ content: text, sourceKey: sourceKey(first) }];
        return await runChatTurn(deps, { events, signal, pack, pinned, inputs });
      }
      if (first.kind === 'unsupported') {
        log.info({ event: 'media_unsupported', what: first.what }, 'cannot take this in');
        return await replyAndFinish(first.address, plain(cannotTake(first.what)), updateIds);
      }
      const pack = activePack(first);
      if (!pack) return park(events);
      await runChatTurn(deps, { events, pack, signal });
    } catch (error) {
      if (signal.aborted && signal.reason instanceof StopRequested) {
        log.info({ event: 'turn_stopped', address: addressKey(first.address) }, 'turn stopped');
        return await replyAndFinish(first.address, plain(STOPPED), updateIds);
      }
      if (signal.aborted && signal.reason instanceof AbortedError) {
        // Shutdown: the update stays pending and is replayed on the next start.
        log.info({ event: 'turn_aborted', address: addressKey(first.address) }, 'turn aborted');
        return;
      }
      log.error(
        { event: 'turn_failed', address: addressKey(first.address), err: error },
        'turn failed',
      );
      const text = error instanceof SatchelError ? error.userMessage : GENERIC_FAILURE;
      await replyAndFinish(first.address, plain(text), updateIds);
    }
  }

  /** No pack yet: keep the messages and ask; the pick answers them without a resend. */
  async function park(events: InboundEvent[]): Promise<void> {
    const key = addressKey(events[0]!.address);
    const waiting = parked.get(key);
    parked.set(key, [...(waiting ?? []), ...events]);
    if (!waiting) await outbox.send(events[0]!.address, pickerMessage(packs.list()));
  }

  async function onCallback(event: Callback, signal: AbortSignal): Promise<void> {
    const name = pickedPack(event.data);
    const pack = name === undefined ? undefined : packs.get(name);
    if (!pack) {
      log.debug({ event: 'tg_callback_ignored', data: event.data }, 'unknown button');
      inbox.markDone(event.updateIds, clock.now());
      return;
    }
    router.resolve(event.address, pack.name);
    const waiting = parked.get(addressKey(event.address));
    parked.delete(addressKey(event.address));
    const done = deps.transaction(() => {
      const ids = event.messageId
        ? [
            outbox.writeEdit(event.address, event.messageId, {
              html: `Pack: <b>${pack.displayName}</b>`,
              plain: `Pack: ${pack.displayName}`,
            }),
          ]
        : [];
      if (!waiting)
        ids.push(...outbox.write(event.address, plain(`Now using ${pack.displayName}.`)));
      inbox.markDone(event.updateIds, clock.now());
      return ids;
    });
    await outbox.dispatch(done);
    if (waiting) await runEvents(waiting, signal);
  }

  return {
    handleUpdate,
    menu: () => commands.menu(),

    /**
     * Starts no more turns (shutdown): texts in the batch window and turns not yet started
     * stay pending and are replayed on the next start; running turns go on.
     */
    close: () => {
      batcher.close();
      actors.close();
    },

    /** Resolves when the running turns have finished. */
    idle: () => actors.idle(),

    /** Aborts running turns; their updates stay pending for the next start. */
    abortAll: () => actors.abortAll(new AbortedError('shutdown')),
  };
}

export type Coordinator = ReturnType<typeof createCoordinator>;
