import { background } from '../core/background.ts';
import { decodeButton } from '../core/button-data.ts';
import type { Logger } from '../core/ports.ts';
import { addressKey, type InboundEvent } from '../core/types.ts';
import type { GateDecision } from '../inbound/allowlist.ts';
import { plain } from '../outbound/compose.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { Router } from '../routing/router.ts';
import type { AskRegistry } from '../tools/asks.ts';
import type { Conversations } from './conversations.ts';
import type { Replies } from './replies.ts';

/**
 * The one reply a stranger gets. It carries their own numeric id (nothing about anyone
 * else), so the owner's first message to a fresh bot says what to put in ALLOWED_USER_IDS.
 */
export function notAuthorized(senderId: number): string {
  return [
    'Sorry, this is a private assistant and you are not authorized to use it.',
    `Your Telegram user id is ${senderId}. If this is your bot, add it to ALLOWED_USER_IDS ` +
      'in its configuration (comma-separated for several) and restart it.',
  ].join('\n');
}

export interface DispatchDeps {
  log: Logger;
  /** The allowlist gate; events from a source that is not a person (a job) pass. */
  gate(event: InboundEvent): GateDecision;
  conversations: Conversations;
  replies: Replies;
  asks: Pick<AskRegistry, 'answer'>;
  router: Pick<Router, 'boundPack' | 'resolve'>;
  packs: Pick<PackRegistry, 'byLabel'>;
  /** Answers a pressed button (stops its spinner), with a short notice when given. */
  answerButton(callbackId: string, notice?: string): Promise<void>;
}

type Callback = Extract<InboundEvent, { kind: 'callback' }>;

/**
 * The pipeline's entry: every event from every source comes through `accept`. In the
 * order of SPEC §2: the allowlist gate before anything else, then by kind — /stop skips the
 * queue, a button press is answered, a topic may bind a pack, and everything else goes to
 * its conversation in order.
 */
export function createDispatch(deps: DispatchDeps) {
  const { log, conversations, replies } = deps;

  function denied(event: InboundEvent, decision: GateDecision): void {
    log.warn(
      {
        event: 'tg_auth_denied',
        userId: event.senderId,
        chatId: event.address.chatId,
        kind: event.kind,
      },
      'sender not on the allowlist',
    );
    const reply = decision === 'deny-and-reply' ? plain(notAuthorized(event.senderId)) : undefined;
    const done = replies.reply(event.address, reply, [event.origin], { priority: 'stranger' });
    background(log, 'reply_failed', done);
  }

  /**
   * An `ask_user` answer goes straight to the waiting turn (it runs in the lane this press
   * would wait in); a `send_message` button is taken as if the user typed its label; a
   * pack pick runs in the conversation's lane.
   */
  function pressed(event: Callback): void {
    const button = decodeButton(event.data);
    if (button?.type === 'ask') {
      // Answers only where it was asked, by whom it was asked; anyone else gets a notice.
      const notice = deps.asks.answer(button, { address: event.address, userId: event.senderId });
      background(log, 'callback_answer_failed', deps.answerButton(event.callbackId, notice));
      replies.settle([event.origin]);
      return;
    }
    background(log, 'callback_answer_failed', deps.answerButton(event.callbackId));
    if (button?.type === 'say') conversations.push({ ...event, kind: 'text', text: button.text });
    else conversations.submit([event]);
  }

  /** A topic created or renamed with a pack's name becomes that pack's workspace. */
  function topic(event: Extract<InboundEvent, { kind: 'topic' }>): void {
    const pack = deps.packs.byLabel(event.name);
    if (
      pack &&
      event.address.threadId !== undefined &&
      deps.router.boundPack(event.address) !== pack.name
    ) {
      deps.router.resolve(event.address, pack.name);
      log.info(
        { event: 'tg_topic_bound', address: addressKey(event.address), pack: pack.name },
        'topic bound',
      );
    }
    replies.settle([event.origin]);
  }

  return {
    accept(event: InboundEvent): void {
      const decision = deps.gate(event);
      if (decision !== 'allow') denied(event, decision);
      else if (event.kind === 'command' && event.command === 'stop') conversations.stop(event);
      else if (event.kind === 'callback') pressed(event);
      else if (event.kind === 'topic') topic(event);
      // Texts, media, edits, commands: in order with the conversation's other messages.
      else conversations.push(event);
    },
  };
}
