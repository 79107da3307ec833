import { randomUUID } from 'node:crypto';
import { encodeButton } from '../core/button-data.ts';
import type { Clock } from '../core/clock.ts';
import type { KeyedInbox } from '../core/inbox.ts';
import { originKey } from '../core/origin.ts';
import type { Logger } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent, type InboundPayload } from '../core/types.ts';
import type { WebChannel } from './channel.ts';
import type { Attachment } from './transcript.ts';

/** Stored input older than this is not replayed at start (as for Telegram's inbox). */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** `/name` or `/name@bot`, then the arguments, as Telegram reads a command. */
const COMMAND = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/;

export interface WebInputDeps {
  /** The owner, who types in every conversation. */
  senderId: string;
  /**
   * The conversation a stored event goes back to on replay: its own when it still exists,
   * else the one a page opens now.
   */
  resolve(stored: Address | undefined): Address;
  /** The owner sent something to `address` (`text`: a typed line): conversations.ts. */
  used?(address: Address, text?: string): void;
  channel: WebChannel;
  inbox: KeyedInbox;
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
  /**
   * Input `key` (stored now, or replayed) names uploads `ids`: they wait for its answer
   * (pending-uploads.ts).
   */
  holds?(key: string, ids: readonly string[]): void;
  /** Input `key` (stored now, or replayed) is for `address`: its acknowledgement finds it. */
  entered?(key: string, address: Address): void;
}

/** What became of a typed line. */
export type LineOutcome = 'taken' | 'blank' | 'busy';

/** A file the owner sent: the payloads Telegram's edge makes of a photo, document or voice. */
export type Attached = Extract<InboundPayload, { kind: 'photo' | 'album' | 'document' | 'voice' }>;

/**
 * What the owner types or presses in the browser, as the pipeline's events: a command
 * (`/new`), a press of a shown button, or text, in a private conversation. Each is written to
 * the edge's inbox (`edge_inbox`) before it is handled — its origin is `web` with that row's
 * key, settled in the reply's transaction — so nothing typed is lost on a crash and nothing
 * is answered twice. `replay` hands on what an earlier run left unanswered.
 */
export function createWebInput(deps: WebInputDeps) {
  const { channel, inbox, clock } = deps;

  function enter(
    address: Address,
    payload: InboundPayload,
    extra: { messageId?: string } = {},
    key: string = randomUUID(),
  ): void {
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
    deps.holds?.(key, uploadsOf(event));
    deps.entered?.(key, address);
    deps.accept(event);
  }

  /** A typed line as the pipeline's event: a command, or text. */
  const typedPayload = (typed: string): InboundPayload => {
    const command = COMMAND.exec(typed);
    return command
      ? { kind: 'command', command: command[1]!.toLowerCase(), args: command[2] ?? '' }
      : { kind: 'text', text: typed };
  };

  return {
    /**
     * Takes one typed line (shown at once); a blank one is ignored, and one the conversation
     * has no room for is refused as busy (logged `turn_rejected_busy`, as the core does).
     */
    line(address: Address, text: string): LineOutcome {
      const typed = text.trim();
      if (typed === '') return 'blank';
      const command = COMMAND.exec(typed);
      // /stop skips the queue (SPEC §2): it is never refused for the turns it would stop.
      const stop = command?.[1]?.toLowerCase() === 'stop';
      if (!stop && deps.full?.(address)) {
        deps.log.warn(
          { event: 'turn_rejected_busy', address: addressKey(address) },
          'conversation queue full',
        );
        return 'busy';
      }
      const key = randomUUID();
      channel.showTyped(address, typed, undefined, sourceOf(address, key));
      deps.used?.(address, typed);
      enter(address, typedPayload(typed), {}, key);
      return 'taken';
    },

    /**
     * Hands on `text` again, as the owner's line shown already (regenerate, edit and resend,
     * Retry): not shown a second time. Returns its new origin key.
     */
    again(address: Address, text: string): string {
      const key = randomUUID();
      enter(address, typedPayload(text.trim()), {}, key);
      return sourceOf(address, key);
    },

    /**
     * Takes a file the owner sent (upload-route.ts kept it): shown at once, with its picture
     * or name, then handed on like a typed line. Never refused as busy (SPEC §2 step 8).
     */
    attach(address: Address, payload: Attached): void {
      const { text, attachment } = shownOf(payload);
      // Shown under its origin key: a recording's transcript finds its bubble by it.
      const key = randomUUID();
      channel.showTyped(
        address,
        text,
        attachment,
        originKey({ platform: address.platform, keys: [key] }),
      );
      deps.used?.(address, text);
      enter(address, payload, {}, key);
    },

    /**
     * The page's Stop button (or Escape): `/stop`, not shown as a typed line. It aborts the
     * running turn, which answers "Stopped." (or says nothing was running), as typed /stop does.
     */
    stop(address: Address): void {
      enter(address, { kind: 'command', command: 'stop', args: '' });
    },

    /**
     * Picks a pack from the first screen: the pack picker's press, with no message to turn
     * into the choice (satchel answers "Now using …").
     */
    pick(address: Address, pack: string): void {
      const data = encodeButton({ type: 'pack', pack });
      enter(address, { kind: 'callback', callbackId: `pick:${randomUUID()}`, data });
    },

    /**
     * Picks a chat model from the header's picker: the press of a `/model` button, with no
     * message to turn into the choice (satchel answers "This chat now uses …").
     */
    pickModel(address: Address, ref: string): void {
      const data = encodeButton({ type: 'model', ref });
      enter(address, { kind: 'callback', callbackId: `model:${randomUUID()}`, data });
    },

    /** Presses button `data` of message `messageId`; false when the page no longer shows it. */
    press(address: Address, messageId: number, data: string): boolean {
      const shown = channel.conversation(address).find(messageId);
      const buttons = shown?.kind === 'bot' ? (shown.buttons ?? []).flat() : [];
      if (!buttons.some((b) => b.data === data)) return false;
      enter(
        address,
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
        // Its own conversation (the web edge's id, whatever ALLOWED_USER_IDS says now).
        const address = deps.resolve(stored.address);
        const event: InboundEvent = { ...stored, address, senderId: deps.senderId };
        deps.holds?.(item.key, uploadsOf(event));
        deps.entered?.(item.key, address);
        if (event.kind !== 'callback') {
          const { text, attachment } = shownOf(event);
          channel.showTyped(address, text, attachment, originKey(event.origin));
        }
        deps.accept(event);
      }
      if (pending.length > 0)
        deps.log.info({ event: 'web_input_replayed', count: pending.length }, 'replaying input');
      return pending.length;
    },
  };
}

export type WebInput = ReturnType<typeof createWebInput>;

/** The origin key (`originKey`) of input `key` at `address`: how the session stores it. */
const sourceOf = (address: Address, key: string) =>
  originKey({ platform: address.platform, keys: [key] });

/** A stored event of this edge, or undefined when the row is not one (it is then dropped). */
function readStored(payload: unknown, key: string): InboundEvent | undefined {
  const event = payload as Partial<InboundEvent> | null;
  if (!event || typeof event !== 'object' || event.origin?.keys?.[0] !== key) return undefined;
  const readable =
    (event.kind === 'text' && typeof event.text === 'string') ||
    (event.kind === 'command' && typeof event.command === 'string') ||
    (event.kind === 'callback' && typeof event.data === 'string') ||
    ((event.kind === 'photo' || event.kind === 'document' || event.kind === 'voice') &&
      typeof event.file?.fileId === 'string') ||
    (event.kind === 'album' && typeof event.photos?.[0]?.file?.fileId === 'string');
  return readable ? (event as InboundEvent) : undefined;
}

/** The uploads an event names (its files' ids). */
function uploadsOf(payload: InboundPayload): string[] {
  switch (payload.kind) {
    case 'photo':
    case 'document':
    case 'voice':
      return [payload.file.fileId];
    case 'album':
      return payload.photos.map((p) => p.file.fileId);
    default:
      return [];
  }
}

/** How the conversation shows what the owner sent (a stored one again after a restart). */
function shownOf(payload: InboundPayload): { text: string; attachment?: Attachment } {
  switch (payload.kind) {
    case 'text':
      return { text: payload.text };
    case 'command':
      return { text: `/${payload.command}${payload.args ? ` ${payload.args}` : ''}` };
    case 'photo':
      return { text: payload.caption, attachment: { kind: 'photo', image: payload.file.fileId } };
    case 'album':
      return {
        text: payload.caption,
        attachment: { kind: 'photo', image: payload.photos[0]!.file.fileId },
      };
    case 'document':
      return { text: payload.caption, attachment: { kind: 'document', name: payload.name } };
    case 'voice':
      return { text: payload.caption, attachment: { kind: 'voice', seconds: payload.durationSec } };
    default:
      return { text: '' };
  }
}
