import type { InlineButton } from '../core/ports.ts';

/** What a message shows: the web chat's markup (markup.ts), or plain text. */
export type Body = { html: string } | { text: string };

/**
 * A file the owner sent, as the page shows it: a photo by its upload's id (the page loads
 * `/chat/files/<image>`), a document by its name, a voice recording by its length (0:
 * unknown) and, once it is transcribed, what it said.
 */
export type Attachment =
  | { kind: 'photo'; image: string }
  | { kind: 'document'; name: string }
  | { kind: 'voice'; seconds: number; transcript?: string };

/** One line of the conversation: what the owner typed or sent, or what satchel sent. */
export type Entry =
  | {
      kind: 'user';
      id: number;
      text: string;
      attachment?: Attachment;
      /** When it was sent or stored (ms): the page shows its time. */
      at: number;
      /** Its input's origin key (`web:<key>`): what regenerate and edit take back. */
      source?: string;
    }
  | ({
      kind: 'bot';
      id: number;
      buttons?: InlineButton[][];
      /** A voice note (a spoken answer): the page plays `/chat/files/<voice>`. */
      voice?: string;
      at: number;
      /** The error line of a failed turn: the page offers Retry on the last one. */
      failed?: true;
      /**
       * A scheduled job's delivered answer, from this pack (never an answer to the owner):
       * the page notifies of it while it is in the background.
       */
      job?: string;
    } & Body);

/** What the page is told, as it happens (one server-sent event each). */
export type ChatUpdate =
  /** `before`: the entry it goes before (an answer takes its draft's place), else last. */
  | { type: 'entry'; entry: Entry; before?: number }
  | { type: 'edit'; entry: Entry }
  | { type: 'delete'; id: number }
  /** The reply being written: replaces the live bubble until a message takes its place. */
  | ({ type: 'draft' } & Body)
  /** A short notice (a pressed button's answer). */
  | { type: 'notice'; text: string }
  /** The conversation has a new title (the model's, after the first exchange). */
  | { type: 'titled'; title: string }
  /**
   * satchel is working on an answer (the turn's typing action, repeated every few seconds
   * while it runs): the page shows it is busy until a message from satchel arrives.
   */
  | { type: 'working' };

/** What a page that (re)connects is shown first. */
export interface Snapshot {
  /** The conversation's id (http.ts adds it). */
  conversation?: string;
  /** Speech to text is set up: the page offers its microphone (http.ts adds it). */
  voiceInput?: true;
  entries: Entry[];
  draft?: Body;
  /** The entry the draft shows before (lines typed while it was written), else it is last. */
  draftBefore?: number;
  /** A turn said it is working and no message from satchel has come since. */
  working?: true;
}

export type Listener = (update: ChatUpdate) => void;

/**
 * One conversation as the page shows it: the last `limit` entries (older ones are
 * forgotten: the page shows the recent conversation, the sessions keep the rest), the draft
 * being written, whether satchel is working, and the pages listening. A new message from
 * satchel ends the draft and the working state. `earlier`: what it starts with (the stored
 * history of an earlier run).
 */
export function createTranscript(limit: number, earlier: readonly Entry[] = []) {
  const entries: Entry[] = earlier.slice(-limit);
  const listeners = new Set<Listener>();
  let draft: Body | undefined;
  /**
   * Where the draft's answer goes: the entries there when its first draft came. A line typed
   * while it is written goes after it, so the answer (a stopped one too) stays above it.
   */
  let draftAt: number | undefined;
  let working = false;

  // A page that went away must not fail the message for the others (or for the outbox).
  const emit = (update: ChatUpdate) => {
    for (const listener of listeners) {
      try {
        listener(update);
      } catch {
        listeners.delete(listener);
      }
    }
  };
  const indexOf = (id: number) => entries.findIndex((e) => e.id === id);
  /** Where the exchange of the owner's message `source` ends: its next message's place. */
  const exchangeEnd = (source: string): number | undefined => {
    const asked = entries.findLastIndex((e) => e.kind === 'user' && e.source === source);
    const next = entries.findIndex((e, i) => i > asked && e.kind === 'user');
    return asked < 0 || next < 0 ? undefined : next;
  };

  return {
    find: (id: number): Entry | undefined => entries[indexOf(id)],

    /**
     * Adds an entry: last, or — satchel's — where its draft was; `answers` (a source key):
     * at the end of the exchange of the owner's message with that key (above later lines).
     */
    add(entry: Entry, answers?: string): void {
      const at =
        answers !== undefined
          ? exchangeEnd(answers)
          : entry.kind === 'bot' && draft !== undefined
            ? draftAt
            : undefined;
      const before = at === undefined ? undefined : entries[at]?.id;
      if (before === undefined) entries.push(entry);
      else entries.splice(at!, 0, entry);
      const over = entries.length - limit;
      if (over > 0) entries.splice(0, over);
      if (entry.kind === 'bot') {
        draft = undefined;
        draftAt = undefined;
        working = false;
      } else if (draftAt !== undefined && over > 0) draftAt = Math.max(0, draftAt - over);
      emit({ type: 'entry', entry, ...(before === undefined ? {} : { before }) });
    },

    /** Replaces an entry; false when it is not (or no longer) shown. */
    replace(entry: Entry): boolean {
      const at = indexOf(entry.id);
      if (at < 0) return false;
      entries[at] = entry;
      emit({ type: 'edit', entry });
      return true;
    },

    /** Removes an entry; false when it is not (or no longer) shown. */
    remove(id: number): boolean {
      const at = indexOf(id);
      if (at < 0) return false;
      entries.splice(at, 1);
      if (draftAt !== undefined && at < draftAt) draftAt--;
      emit({ type: 'delete', id });
      return true;
    },

    draft(body: Body): void {
      if (draft === undefined) draftAt = entries.length;
      draft = body;
      emit({ type: 'draft', ...body });
    },

    working(): void {
      working = true;
      emit({ type: 'working' });
    },

    notice(text: string): void {
      emit({ type: 'notice', text });
    },

    titled(title: string): void {
      emit({ type: 'titled', title });
    },

    snapshot(): Snapshot {
      return {
        entries: [...entries],
        ...(draft ? { draft } : {}),
        ...(draft && draftAt !== undefined && entries[draftAt]
          ? { draftBefore: entries[draftAt]!.id }
          : {}),
        ...(working ? { working: true as const } : {}),
      };
    },

    /** Calls `listener` with every update from now on; returns how to stop. */
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type Transcript = ReturnType<typeof createTranscript>;
