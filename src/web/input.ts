import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent, type InboundPayload } from '../core/types.ts';
import type { EdgeInboxRepo } from '../store/edge-inbox-repo.ts';
import type { WebChannel } from './channel.ts';

/** Stored input older than this is not replayed at start (as for Telegram's inbox). */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** `/name` or `/name@bot`, then the arguments, as Telegram reads a command. */
const COMMAND = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/;

export interface WebInputDeps {
  /** The web chat's one conversation, and the owner who types in it. */
  address: Address;
  senderId: string;
  channel: WebChannel;
  inbox: EdgeInboxRepo;
  clock: Clock;
  log: Logger;
  /** The pipeline's entry. */
  accept(event: InboundEvent): void;
  /**
   * Whether the conversation would refuse a typed line as busy now (SPEC §2 step 8). Such a
   * line is not taken — not stored, shown or answered — so the POST can say so and the page
   * keeps the text to send again.
   */
  full?(address: Address): boolean;
}

/** What became of a typed line. */
export type LineOutcome = 'taken' | 'blank' | 'busy';

/**
 * What the owner types or presses in the browser, as the pipeline's events: a command
 * (`/new`), a press of a shown button, or text, in a private conversation. Each is written to
 * the edge's inbox (`edge_inbox`) before it is handled — its origin is `web` with that row's
 * key, settled in the reply's transaction — so nothing typed is lost on a crash and nothing
 * is answered twice. `replay` hands on what an earlier run left unanswered.
 */
export function createWebInput(deps: WebInputDeps) {
  const { address, channel, inbox, clock } = deps;

  function enter(payload: InboundPayload, extra: { messageId?: string } = {}): void {
    const key = randomUUID();
    const now = clock.now();
    const event: InboundEvent = {
      origin: { platform: address.platform, keys: [key] },
      address,
      chatType: 'private',
      senderId: deps.senderId,
      receivedAt: now,
      ...extra,
      ...payload,
    };
    inbox.record({ key, payload: event, receivedAt: now });
    deps.accept(event);
  }

  return {
    /**
     * Takes one typed line (shown at once); a blank one is ignored, and one the conversation
     * has no room for is refused as busy (logged `turn_rejected_busy`, as the core does).
     */
    line(text: string): LineOutcome {
      const typed = text.trim();
      if (typed === '') return 'blank';
      if (deps.full?.(address)) {
        deps.log.warn(
          { event: 'turn_rejected_busy', address: addressKey(address) },
          'conversation queue full',
        );
        return 'busy';
      }
      channel.showTyped(address, typed);
      const command = COMMAND.exec(typed);
      if (command)
        enter({ kind: 'command', command: command[1]!.toLowerCase(), args: command[2] ?? '' });
      else enter({ kind: 'text', text: typed });
      return 'taken';
    },

    /** Presses button `data` of message `messageId`; false when the page no longer shows it. */
    press(messageId: number, data: string): boolean {
      const shown = channel.conversation(address).find(messageId);
      const buttons = shown?.kind === 'bot' ? (shown.buttons ?? []).flat() : [];
      if (!buttons.some((b) => b.data === data)) return false;
      enter(
        { kind: 'callback', callbackId: `${messageId}:${randomUUID()}`, data },
        { messageId: String(messageId) },
      );
      return true;
    },

    /**
     * Hands on, oldest first, the input an earlier run stored and did not answer (younger
     * than a day); typed lines are shown again. Returns how many.
     */
    replay(): number {
      const pending = inbox.pending(clock.now() - REPLAY_WINDOW_MS);
      for (const item of pending) {
        const stored = readStored(item.payload, item.key);
        if (!stored) {
          deps.log.warn({ event: 'web_input_malformed', key: item.key }, 'stored input dropped');
          inbox.markDone([item.key], clock.now());
          continue;
        }
        // The conversation as configured now (ALLOWED_USER_IDS may have changed since).
        const event: InboundEvent = { ...stored, address, senderId: deps.senderId };
        if (event.kind === 'text') channel.showTyped(address, event.text);
        else if (event.kind === 'command')
          channel.showTyped(address, `/${event.command}${event.args ? ` ${event.args}` : ''}`);
        deps.accept(event);
      }
      if (pending.length > 0)
        deps.log.info({ event: 'web_input_replayed', count: pending.length }, 'replaying input');
      return pending.length;
    },
  };
}

export type WebInput = ReturnType<typeof createWebInput>;

/** A stored event of this edge, or undefined when the row is not one (it is then dropped). */
function readStored(payload: unknown, key: string): InboundEvent | undefined {
  const event = payload as Partial<InboundEvent> | null;
  if (!event || typeof event !== 'object' || event.origin?.keys?.[0] !== key) return undefined;
  const readable =
    (event.kind === 'text' && typeof event.text === 'string') ||
    (event.kind === 'command' && typeof event.command === 'string') ||
    (event.kind === 'callback' && typeof event.data === 'string');
  return readable ? (event as InboundEvent) : undefined;
}
