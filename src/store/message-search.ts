import { indexPending } from './search-index.ts';
import type { Database } from './sqlite.ts';

/** One past message found by `memory_search`. */
export interface FoundMessage {
  sessionId: string;
  role: 'user' | 'assistant';
  createdAt: number;
  /** The matching part, the matched words in [brackets]. */
  snippet: string;
  /**
   * It was written after its session read untrusted content, or holds some (SPEC §17): what
   * it says may come from outside, so it is shown as such.
   */
  untrusted: boolean;
}

export interface MessageSearchQuery {
  pack: string;
  /** The session key of the chat or topic: all of its sessions (and job runs) are searched. */
  key: string;
  query: string;
  limit: number;
}

/**
 * The words of `query` as FTS5 expressions: all of them (`every`) and any of them (`any`),
 * each a quoted token. Quoting keeps FTS5's syntax (AND, NEAR, *, column filters) out of
 * the model's hands. Undefined when the query has no word.
 */
export function ftsExpressions(query: string): { every: string; any: string } | undefined {
  const words = query.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 16) ?? [];
  if (words.length === 0) return undefined;
  const quoted = words.map((w) => `"${w}"`);
  return { every: quoted.join(' AND '), any: quoted.join(' OR ') };
}

/** The index's scope token of a conversation, as migrations/0007_memory_search.sql defines it. */
export function scopeToken(pack: string, key: string): string {
  return `s${Buffer.from(`${pack}|${key}`, 'utf8').toString('hex').toUpperCase()}`;
}

/**
 * Full-text search over the stored user and assistant messages of one pack in one chat or
 * topic: the newest messages holding every word first, then the newest holding any. The
 * scope token narrows FTS5 to that conversation's rows, and newest-first lets FTS5 stop at
 * the limit instead of ranking every match (a common word matches most of a long chat). The
 * join checks pack and key again, so no other pack's row can come back.
 */
export function createMessageSearch(sqlite: Database) {
  const statement = sqlite.prepare(`
    SELECT m.id AS id, m.session_id AS sessionId, m.role AS role, m.created_at AS createdAt,
           snippet(messages_search, 0, '[', ']', '…', 16) AS snippet,
           (m.created_at >= s.tainted_at OR instr(m.content, '<<untrusted') > 0) AS untrusted
    FROM messages_search
    JOIN messages m ON m.id = messages_search.rowid
    JOIN sessions s ON s.id = m.session_id
    WHERE messages_search MATCH ? AND s.pack = ? AND s.key = ?
    ORDER BY messages_search.rowid DESC
    LIMIT ?`);
  const run = (match: string, q: MessageSearchQuery) =>
    statement.all(match, q.pack, q.key, q.limit) as (FoundMessage & { id: number })[];
  return {
    search(q: MessageSearchQuery): FoundMessage[] {
      const expressions = ftsExpressions(q.query);
      if (!expressions) return [];
      indexPending(sqlite);
      const scope = `scope:${scopeToken(q.pack, q.key)}`;
      const found = run(`${scope} AND content:(${expressions.every})`, q);
      if (found.length < q.limit && expressions.any !== expressions.every) {
        const seen = new Set(found.map((m) => m.id));
        for (const m of run(`${scope} AND content:(${expressions.any})`, q))
          if (found.length < q.limit && !seen.has(m.id)) found.push(m);
      }
      return found.map(({ id: _, ...m }) => ({ ...m, untrusted: Boolean(m.untrusted) }));
    },
  };
}

export type MessageSearch = ReturnType<typeof createMessageSearch>;
