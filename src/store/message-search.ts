import type { Database } from './sqlite.ts';

/** One past message found by `memory_search`. */
export interface FoundMessage {
  sessionId: string;
  role: 'user' | 'assistant';
  createdAt: number;
  /** The matching part, the matched words in [brackets]. */
  snippet: string;
}

export interface MessageSearchQuery {
  pack: string;
  /** The session key of the chat or topic: all of its sessions (and job runs) are searched. */
  key: string;
  query: string;
  limit: number;
}

/**
 * The words of `query` as an FTS5 expression: each a quoted token, any of them matching
 * (bm25 ranks messages with more of them first). Quoting keeps FTS5's syntax (AND, NEAR, *,
 * column filters) out of the model's hands. Undefined when the query has no word.
 */
export function ftsExpression(query: string): string | undefined {
  const words = query.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 16) ?? [];
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w}"`).join(' OR ');
}

/** The index's scope token of a conversation, as migrations/0004_memory_search.sql writes it. */
export function scopeToken(pack: string, key: string): string {
  return `s${Buffer.from(`${pack}|${key}`, 'utf8').toString('hex').toUpperCase()}`;
}

/**
 * Full-text search over the stored user and assistant messages of one pack in one chat or
 * topic. The scope token narrows FTS5 to that conversation's rows; the join checks pack and
 * key again, so no other pack's row can come back even if two scopes ever met in the index.
 */
export function createMessageSearch(sqlite: Database) {
  const statement = sqlite.prepare(`
    SELECT m.session_id AS sessionId, m.role AS role, m.created_at AS createdAt,
           snippet(messages_search, 0, '[', ']', '…', 16) AS snippet
    FROM messages_search
    JOIN messages m ON m.id = messages_search.rowid
    JOIN sessions s ON s.id = m.session_id
    WHERE messages_search MATCH ? AND s.pack = ? AND s.key = ?
    ORDER BY rank
    LIMIT ?`);
  return {
    search({ pack, key, query, limit }: MessageSearchQuery): FoundMessage[] {
      const expression = ftsExpression(query);
      if (!expression) return [];
      const match = `scope:${scopeToken(pack, key)} AND content:(${expression})`;
      return statement.all(match, pack, key, limit) as FoundMessage[];
    },
  };
}

export type MessageSearch = ReturnType<typeof createMessageSearch>;
