import { randomInt } from 'node:crypto';
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { Channel, TextPart } from '../core/ports.ts';
import type { Address, ChatType } from '../core/types.ts';
import { markdown } from './compose.ts';
import type { Outbox } from './outboxes.ts';
import { partialMarkdown } from './partial-markdown.ts';

/**
 * How a reply streams: `draft` animates a draft (private chats) and sends the final text
 * once; `edit` sends the first chunk and edits it in place (groups and topics); `none`
 * sends only the final text.
 */
export type StreamMode = 'draft' | 'edit' | 'none';

/**
 * How a reply streams on `channel` in a chat of `chatType`, by the methods it has: drafts in
 * private chats; else editing the first chunk in place; with neither, the final text only.
 */
export function streamModeFor(
  channel: Pick<Channel, 'sendDraft' | 'editText'>,
  chatType: ChatType,
): StreamMode {
  if (chatType === 'private' && channel.sendDraft) return 'draft';
  return channel.editText ? 'edit' : 'none';
}

export interface StreamOptions {
  outbox: Outbox;
  clock: Clock;
  to: Address;
  mode: StreamMode;
  /**
   * At most one update per this many ms; by default the channel's own cadence, else once
   * per second per chat (Telegram's edit limit).
   */
  intervalMs?: number;
  /**
   * The turn's own key (`edit` mode): each message shown is recorded under it, and messages
   * an earlier, crashed run of the same turn showed are taken over and edited.
   */
  key?: string;
}

interface Shown {
  messageId: string;
  text: string;
}

/**
 * Streams a reply as it is written. Updates are throttled and coalesced: at most one is in
 * flight, and each carries the newest text. Content identical to what is shown is never
 * sent again. A half-written mark is held back or closed (see partial-markdown.ts). Past the channel's length limit (its renderer splits) the shown message is left
 * as it is and a new one continues.
 * `finish` writes the final outbox rows: edits of the shown messages where the final text
 * differs, new messages for the rest, and removals of shown messages it no longer needs.
 */
export function createStream(options: StreamOptions) {
  const { outbox, clock, to, mode } = options;
  const intervalMs = options.intervalMs ?? outbox.streamIntervalFor(to) ?? 1000;
  const draftId = randomInt(1, 2 ** 31 - 1);
  const { key } = options;
  const shown: Shown[] = mode === 'edit' && key !== undefined ? outbox.streamed(to, key) : [];
  let text = '';
  let lastDraft = '';
  let timer: TimerHandle | undefined;
  let inFlight: Promise<void> | undefined;
  let lastUpdateAt = Number.NEGATIVE_INFINITY;
  let dirty = false;
  let closed = false;

  const schedule = () => {
    if (closed || timer !== undefined || inFlight) return;
    const wait = Math.max(0, lastUpdateAt + intervalMs - clock.now());
    timer = clock.setTimeout(update, wait);
  };

  function update(): void {
    timer = undefined;
    if (closed || !dirty) return;
    dirty = false;
    lastUpdateAt = clock.now();
    inFlight = show(outbox.renderFor(to).text(markdown(partialMarkdown(text)))).finally(() => {
      inFlight = undefined;
      if (dirty) schedule();
    });
  }

  async function show(parts: TextPart[]): Promise<void> {
    if (mode === 'draft') {
      const part = parts.at(-1);
      if (!part || part.text === lastDraft) return;
      lastDraft = part.text;
      await outbox.draft(to, draftId, part);
      return;
    }
    for (const [i, part] of parts.entries()) {
      const current = shown[i];
      if (current) {
        if (current.text !== part.text && (await outbox.editLive(to, current.messageId, part)))
          current.text = part.text;
        continue;
      }
      const messageId = await outbox.sendLive(to, part);
      if (messageId === undefined) return;
      shown.push({ messageId, text: part.text });
      if (key !== undefined) outbox.recordStreamed(to, key, messageId, part);
    }
  }

  return {
    push(delta: string): void {
      if (mode === 'none' || closed || delta === '') return;
      text += delta;
      dirty = true;
      schedule();
    },

    /** Forgets the text so far (the model starts over); shown messages get the new text. */
    reset(): void {
      text = '';
    },

    /**
     * Stops streaming and waits for the update in flight, so what is shown is known. A draft
     * still waiting for a slot is dropped: the final text follows at once.
     */
    async settle(): Promise<void> {
      closed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      if (mode === 'draft') outbox.dropWaiting(to, 'sendMessageDraft');
      await inFlight;
    },

    /** Writes the final rows for the answer's parts (after `settle`, in the turn's transaction). */
    finish(parts: TextPart[]): number[] {
      const rows = parts.flatMap((part, i) => {
        const current = shown[i];
        if (!current) return outbox.writeParts(to, [part]);
        return current.text === part.text ? [] : [outbox.writeEdit(to, current.messageId, part)];
      });
      // Shown parts the final text no longer has (the model started over) are removed.
      for (const extra of shown.slice(parts.length))
        rows.push(outbox.writeDelete(to, extra.messageId));
      return rows;
    },
  };
}

export type Stream = ReturnType<typeof createStream>;
