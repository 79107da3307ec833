import { background } from '../core/background.ts';
import { decodeButton } from '../core/button-data.ts';
import type { Verdict } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent } from '../core/types.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { Router } from '../routing/router.ts';
import type { AskRegistry } from '../tools/asks.ts';
import type { ActionPresses } from './action-press.ts';
import type { Conversations } from './conversations.ts';
import type { Replies } from './replies.ts';

export interface DispatchDeps {
  log: Logger;
  /** The gate of the event's edge (its allowlist); an edge without one lets all pass. */
  gate(event: InboundEvent): Verdict;
  conversations: Pick<Conversations, 'submit' | 'push' | 'note' | 'stop'>;
  replies: Pick<Replies, 'reply' | 'settle'>;
  asks: Pick<AskRegistry, 'answer'>;
  /** Whether a pack action's button may be pressed by its presser (SPEC §3, §19). */
  actions: Pick<ActionPresses, 'refusal'>;
  router: Pick<Router, 'boundPack' | 'ownPack' | 'resolve' | 'unbind'>;
  packs: Pick<PackRegistry, 'byLabel'>;
  /** Answers a pressed button (stops its spinner), with a short notice when given. */
  answerButton(to: Address, callbackId: string, notice?: string): Promise<void>;
  /** GROUP_REPLY (SPEC §12): `mention` answers only addressed messages outside pack topics. */
  groupReply: 'mention' | 'all';
  /** What the bot said in one of its messages (a reaction's note quotes it). */
  botMessage(
    to: Address,
    messageId: string,
  ): { text: string; threadId: string | undefined } | undefined;
  /** A topic was closed, reopened or its group moved (chat-changes.ts). */
  chatChange(event: Extract<InboundEvent, { kind: 'chat_change' }>): void;
}

type Callback = Extract<InboundEvent, { kind: 'callback' }>;

/** The first words a reaction's note quotes of the message reacted to. */
const NOTE_WORDS = 12;

/** "reacted 👍 to: <first words of that message>" (SPEC §12). */
export function reactionNote(emoji: string, text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  const start = words.slice(0, NOTE_WORDS).join(' ');
  return `[reacted ${emoji} to: "${start}${words.length > NOTE_WORDS ? ' …' : ''}"]`;
}

/**
 * The pipeline's entry: every event from every source comes through `accept`. In the
 * order of SPEC §2: the allowlist gate before anything else, then by kind — /stop skips the
 * queue, a button press is answered, a topic may bind a pack, and everything else goes to
 * its conversation in order.
 */
export function createDispatch(deps: DispatchDeps) {
  const { log, conversations, replies } = deps;

  /**
   * Refused by its edge (which logged why): its reply, if any, and its word to the owner, if
   * any (sent as the owner's own messages are, ahead of strangers' replies); nothing else.
   */
  function denied(event: InboundEvent, verdict: Exclude<Verdict, 'allow'>): void {
    const done = replies.reply(event.address, verdict.reply, [event.origin], {
      priority: 'stranger',
    });
    background(log, 'reply_failed', done);
    const owner = verdict.tellOwner;
    if (owner) background(log, 'reply_failed', replies.reply(owner.to, owner.message, []));
  }

  /**
   * An `ask_user` answer goes straight to the waiting turn (it runs in the lane this press
   * would wait in); a `send_message` button is taken as if the user typed its label; a pack
   * action's button, when its presser may press it, and a pack pick run in the conversation's
   * lane.
   */
  function pressed(event: Callback): void {
    const button = decodeButton(event.data);
    if (button?.type === 'action') {
      // Refused (someone else's home, or gone): the presser hears why, and nothing runs.
      const notice = deps.actions.refusal(button, event);
      background(
        log,
        'callback_answer_failed',
        deps.answerButton(event.address, event.callbackId, notice),
      );
      if (notice === undefined) conversations.submit([event]);
      else replies.settle([event.origin]);
      return;
    }
    if (button?.type === 'ask') {
      // Answers only where it was asked, by whom it was asked; anyone else gets a notice.
      const notice = deps.asks.answer(button, { address: event.address, userId: event.senderId });
      background(
        log,
        'callback_answer_failed',
        deps.answerButton(event.address, event.callbackId, notice),
      );
      replies.settle([event.origin]);
      return;
    }
    background(log, 'callback_answer_failed', deps.answerButton(event.address, event.callbackId));
    if (button?.type === 'say') conversations.push({ ...event, kind: 'text', text: button.text });
    else conversations.submit([event]);
  }

  /**
   * A topic created or renamed with a pack's name becomes that pack's workspace; one renamed
   * so it no longer names its pack is unbound (SPEC §12).
   */
  function topic(event: Extract<InboundEvent, { kind: 'topic' }>): void {
    const pack = deps.packs.byLabel(event.name);
    const bound =
      event.address.threadId === undefined ? undefined : deps.router.boundPack(event.address);
    if (!pack && bound !== undefined) {
      deps.router.unbind(event.address);
      log.info(
        { event: 'topic_unbound', address: addressKey(event.address), pack: bound },
        'topic renamed away from its pack',
      );
    } else if (
      pack &&
      event.address.threadId !== undefined &&
      deps.router.boundPack(event.address) !== pack.name
    ) {
      deps.router.resolve(event.address, pack.name, 'pick');
      log.info(
        { event: 'topic_bound', address: addressKey(event.address), pack: pack.name },
        'topic bound',
      );
    }
    replies.settle([event.origin]);
  }

  /**
   * In a group (outside a pack's topic) with GROUP_REPLY=mention, a message that does not
   * speak to the bot is not a prompt: it costs nothing and is not stored (SPEC §12).
   */
  function overheard(event: InboundEvent): boolean {
    if (deps.groupReply === 'all' || event.addressed !== false) return false;
    if (event.chatType !== 'group' && event.chatType !== 'supergroup') return false;
    // A pack's topic: bound to it as its own (not through DEFAULT_PACK), or named after it
    // (bound on this first contact).
    const packTopic =
      event.address.threadId !== undefined &&
      (deps.router.ownPack(event.address) !== undefined ||
        (event.topicName !== undefined && deps.packs.byLabel(event.topicName) !== undefined));
    return !packTopic;
  }

  /**
   * A reaction to one of the bot's messages waits, as a note, for the conversation's next
   * turn (in the message's topic); a reaction to anything else is nothing to tell.
   */
  function reacted(event: Extract<InboundEvent, { kind: 'reaction' }>): void {
    const shown =
      event.messageId === undefined ? undefined : deps.botMessage(event.address, event.messageId);
    if (!shown) {
      replies.settle([event.origin]);
      return;
    }
    const address = {
      ...event.address,
      ...(shown.threadId === undefined ? {} : { threadId: shown.threadId }),
    };
    conversations.note({ ...event, address }, reactionNote(event.emoji, shown.text));
    log.debug({ event: 'reaction_noted', address: addressKey(address) }, 'kept for the next turn');
  }

  return {
    accept(event: InboundEvent): void {
      const verdict = deps.gate(event);
      if (verdict !== 'allow') denied(event, verdict);
      else if (overheard(event)) {
        log.debug({ event: 'group_message_ignored', kind: event.kind }, 'not addressed to the bot');
        replies.settle([event.origin]);
      } else if (event.kind === 'command' && event.command === 'stop') conversations.stop(event);
      else if (event.kind === 'callback') pressed(event);
      else if (event.kind === 'topic') topic(event);
      else if (event.kind === 'reaction') reacted(event);
      else if (event.kind === 'chat_change') deps.chatChange(event);
      // Texts, media, edits, commands: in order with the conversation's other messages.
      else conversations.push(event);
    },
  };
}
