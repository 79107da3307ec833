import type { Address } from './types.ts';

/**
 * The conversations an edge makes itself (the web chat's: SPEC §16), kept by the store in
 * `web_conversations`. Each is one address of the edge, `{platform, chatId: id}`; the core
 * routes it like any chat and never reads this list.
 */
export interface EdgeConversation {
  id: string;
  title: string;
  /** The owner named it: the first line typed no longer does, nor the model. */
  titled: boolean;
  /** The model wrote its title after the first exchange: it writes none again. */
  modelTitled: boolean;
  /** Listed before the others. */
  pinned: boolean;
  /** When the owner deleted it (hidden, then emptied once the undo lapsed); null: kept. */
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A line of a conversation's stored history: what the owner said, or satchel's answer. */
export interface StoredLine {
  role: 'user' | 'assistant';
  /** The owner's message as stored, or the answer's Markdown. */
  text: string;
  /** The owner's message's origin key (`originKey`): a replay of it is not shown again. */
  source?: string;
  /** When it was stored (ms). */
  at: number;
  /** An answer that is the error line of a failed turn (`failed`), not the model's words. */
  failed?: true;
}

/** A line of a conversation as an export writes it: who, what, and when. */
export interface ExportedLine extends StoredLine {
  at: number;
}

/** A conversation a search found: by its title, or by a message (its snippet, words in [ ]). */
export interface FoundConversation {
  id: string;
  snippet?: string;
}

/** What emptying a deleted conversation removed. */
export interface Purged {
  messages: number;
  jobs: number;
}

export interface EdgeConversations {
  /** Every conversation not deleted: the pinned first, then the most recently used first. */
  list(): EdgeConversation[];
  get(id: string): EdgeConversation | undefined;
  create(conversation: EdgeConversation): void;
  /** Sets its title (and whether the owner chose it); false when there is no such one. */
  rename(id: string, title: string, titled: boolean): boolean;
  /** It was used at `now`: it moves to the top of the list. */
  touch(id: string, now: number): void;
  /** Pins or unpins it; false when there is no such one. */
  pin(id: string, pinned: boolean): boolean;
  /** The model wrote `title`, unless the owner named it meanwhile; false when not written. */
  modelTitle(id: string, title: string): boolean;
  /** Deletes it at `at` (hidden, kept for the undo), or undoes that (null); false: no such one. */
  hide(id: string, at: number | null): boolean;
  /**
   * Empties a deleted conversation: the messages (and their search index) and sessions at
   * `address`, its route and its jobs. The row stays with its title, for the ledger's rows.
   */
  purge(id: string, address: Address): Purged;
  /** Deleted conversations not yet emptied (an undo a restart cut short). */
  unpurged(): EdgeConversation[];
  /** Conversations whose title or chat messages hold every word of `query`, newest first. */
  search(query: string, addressOf: (id: string) => Address, limit: number): FoundConversation[];
  /** Every line of the chat sessions at `address`, oldest first, with its time (an export). */
  lines(address: Address): ExportedLine[];
  /**
   * The last `limit` lines of the chat sessions at `address` (every session a `/new` left
   * behind too), oldest first: what the owner said and what satchel answered, without tool
   * calls, tool results or empty texts.
   */
  history(address: Address, limit: number): StoredLine[];
  /**
   * The turn of input `source` (its origin key) in conversation `id` failed with `text` (the
   * error line it answered): kept beside the history, never in the session.
   */
  failed(id: string, source: string, text: string, at: number): void;
  /**
   * Takes back the last exchange at `address` from the owner's message `source` on: that
   * message and everything its session stored after it (the answer, tool calls and results;
   * the memory search index follows the rows) and its failure line. What its tools wrote
   * elsewhere stays, and so does the ledger. Returns how many messages went.
   */
  unsay(address: Address, source: string): number;
}
