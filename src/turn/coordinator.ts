import { randomUUID } from 'node:crypto';
import type { Update } from 'grammy/types';
import type { Agent } from '../agent/agent.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { Clock } from '../core/clock.ts';
import { AbortedError, GENERIC_FAILURE, SatchelError } from '../core/errors.ts';
import type { ChannelCapabilities, Logger } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent } from '../core/types.ts';
import type { createAllowlist } from '../inbound/allowlist.ts';
import { createBatcher } from '../inbound/batcher.ts';
import type { OutboundText } from '../outbound/compose.ts';
import type { Outbox } from '../outbound/outbox.ts';
import { createStream, type StreamMode } from '../outbound/stream.ts';
import { keepTyping } from '../outbound/typing.ts';
import type { Router } from '../routing/router.ts';
import type { InboxRepo } from '../store/inbox-repo.ts';
import { translateUpdate } from '../telegram/translate.ts';
import { createActors } from './actors.ts';
import { type CommandContext, runCommand } from './commands.ts';

export const NOT_AUTHORIZED =
  'Sorry, this is a private assistant and you are not authorized to use it.';
export const BUSY =
  'I am still working on your earlier messages, so I did not take this one. Please send it again in a moment.';
/** The pack a conversation uses when no pack is installed. */
export const CORE_PACK = 'core';
/** Turns that may wait behind the running one in a conversation. */
const MAX_WAITING = 5;

export interface CoordinatorDeps {
  clock: Clock;
  log: Logger;
  transaction: <T>(fn: () => T) => T;
  inbox: InboxRepo;
  outbox: Outbox;
  router: Router;
  agent: Agent;
  allowlist: ReturnType<typeof createAllowlist>;
  batchWindowMs: number;
  timezone: string;
  channelCapabilities: ChannelCapabilities;
}

/**
 * The turn coordinator: every inbound event goes through here, in the order of SPEC §2 —
 * allowlist gate, classify, batch, then the conversation's actor runs the turn. Whatever
 * happens, the user's update is marked done only together with what was written in reply,
 * so a crash leaves it to be replayed and never answered twice.
 */
export function createCoordinator(deps: CoordinatorDeps) {
  const { clock, log, inbox, outbox, router, agent } = deps;
  const actors = createActors({ maxWaiting: MAX_WAITING });
  const batcher = createBatcher({ windowMs: deps.batchWindowMs, clock, emit: startTurn });

  /** Writes a reply and marks the updates done in one transaction, then sends the reply. */
  function replyAndFinish(to: Address, message: OutboundText | undefined, updateIds: number[]) {
    const ids = deps.transaction(() => {
      const written = message ? outbox.write(to, message) : [];
      inbox.markDone(updateIds, clock.now());
      return written;
    });
    return outbox.dispatch(ids);
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
      const reply =
        decision === 'deny-and-reply'
          ? { text: NOT_AUTHORIZED, format: 'plain' as const }
          : undefined;
      void replyAndFinish(event.address, reply, event.updateIds);
      return;
    }
    switch (event.kind) {
      case 'text':
      case 'command':
        batcher.push(event);
        return;
      case 'callback':
        void outbox.answerCallback(event.callbackId);
        inbox.markDone(event.updateIds, clock.now());
        return;
      default:
        log.debug({ event: 'tg_update_ignored', kind: event.kind }, 'kind not handled');
        inbox.markDone(event.updateIds, clock.now());
    }
  }

  function startTurn(events: InboundEvent[]): void {
    const first = events[0];
    if (!first) return;
    const key = addressKey(first.address);
    const updateIds = events.flatMap((e) => e.updateIds);
    const outcome = actors.submit(key, (signal) => runTurn(events, signal));
    if (outcome === 'busy') {
      log.warn({ event: 'turn_rejected_busy', address: key }, 'conversation queue full');
      void replyAndFinish(first.address, { text: BUSY, format: 'plain' }, updateIds);
    }
  }

  async function runTurn(events: InboundEvent[], signal: AbortSignal): Promise<void> {
    const first = events[0]!;
    const { address } = first;
    const updateIds = events.flatMap((e) => e.updateIds);
    const turnId = randomUUID();
    const started = clock.now();
    const turnLog = log.child({ turnId, address: addressKey(address) });
    try {
      if (first.kind === 'command') {
        const reply = runCommand(first.command, first.args, commandContext(address));
        await replyAndFinish(address, reply, updateIds);
        return;
      }
      const text = events
        .map((e) => (e.kind === 'text' ? e.text : ''))
        .filter(Boolean)
        .join('\n');
      const route = router.resolve(address, router.boundPack(address) ?? CORE_PACK);
      const stopTyping = keepTyping(outbox, clock, address);
      const stream = createStream({ outbox, clock, to: address, mode: streamMode(first.chatType) });
      try {
        const result = await agent.run(
          {
            session: route.session,
            turnId,
            chatId: address.chatId,
            threadId: address.threadId,
            system: buildSystemPrompt({ now: clock.now(), timezone: deps.timezone }),
            content: text,
            sourceKey: `tg:update:${updateIds[0]}`,
            signal,
            onText: stream.push,
            beforeFinish: stream.settle,
          },
          (answer) => {
            const ids = stream.finish(answer);
            inbox.markDone(updateIds, clock.now());
            return ids;
          },
        );
        stopTyping();
        await outbox.dispatch(result.delivered);
        turnLog.info(
          {
            event: 'turn_completed',
            sessionId: route.session.id,
            pack: route.pack,
            modelCalls: result.modelCalls,
            ms: clock.now() - started,
          },
          'turn completed',
        );
      } finally {
        stopTyping();
        await stream.settle();
      }
    } catch (error) {
      if (signal.aborted && signal.reason instanceof AbortedError) {
        // Shutdown: the update stays pending and is replayed on the next start.
        turnLog.info({ event: 'turn_aborted', reason: signal.reason.message }, 'turn aborted');
        return;
      }
      turnLog.error({ event: 'turn_failed', err: error }, 'turn failed');
      const text = error instanceof SatchelError ? error.userMessage : GENERIC_FAILURE;
      await replyAndFinish(address, { text, format: 'plain' }, updateIds);
    }
  }

  function streamMode(chatType: InboundEvent['chatType']): StreamMode {
    const can = deps.channelCapabilities;
    if (chatType === 'private' && can.drafts) return 'draft';
    return can.edits ? 'edit' : 'none';
  }

  function commandContext(address: Address): CommandContext {
    return {
      address,
      newSession: () => {
        router.fresh(address, router.boundPack(address) ?? CORE_PACK);
      },
    };
  }

  return {
    handleUpdate,

    /** Emits open text batches at once (shutdown). */
    flush: () => batcher.flushAll(),

    /** Resolves when every queued turn has finished. */
    idle: () => actors.idle(),

    /** Aborts running turns; their updates stay pending for the next start. */
    abortAll: () => actors.abortAll(new AbortedError('shutdown')),
  };
}

export type Coordinator = ReturnType<typeof createCoordinator>;
