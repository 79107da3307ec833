import type { Address } from './types.ts';

/**
 * The conversations an edge makes itself (the web chat's: SPEC §16), kept by the store in
 * `web_conversations`. Each is one address of the edge, `{platform, chatId: id}`; the core
 * routes it like any chat and never reads this list.
 */
export interface EdgeConversation {
  id: string;
  title: string;
  /** The owner named it: the first line typed no longer does. */
  titled: boolean;
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

export interface EdgeConversations {
  /** Every conversation, the most recently used first. */
  list(): EdgeConversation[];
  get(id: string): EdgeConversation | undefined;
  create(conversation: EdgeConversation): void;
  /** Sets its title (and whether the owner chose it); false when there is no such one. */
  rename(id: string, title: string, titled: boolean): boolean;
  /** It was used at `now`: it moves to the top of the list. */
  touch(id: string, now: number): void;
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
