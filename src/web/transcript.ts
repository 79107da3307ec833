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
  | { kind: 'user'; id: number; text: string; attachment?: Attachment }
  | ({
      kind: 'bot';
      id: number;
      buttons?: InlineButton[][];
      /** A voice note (a spoken answer): the page plays `/chat/files/<voice>`. */
      voice?: string;
    } & Body);

/** What the page is told, as it happens (one server-sent event each). */
export type ChatUpdate =
  | { type: 'entry'; entry: Entry }
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

  return {
    find: (id: number): Entry | undefined => entries[indexOf(id)],

    add(entry: Entry): void {
      entries.push(entry);
      if (entries.length > limit) entries.splice(0, entries.length - limit);
      if (entry.kind === 'bot') {
        draft = undefined;
        working = false;
      }
      emit({ type: 'entry', entry });
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
      emit({ type: 'delete', id });
      return true;
    },

    draft(body: Body): void {
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
