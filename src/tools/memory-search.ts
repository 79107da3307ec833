import { z } from 'zod';
import { envelope } from '../core/trust.ts';
import type { FoundMessage, MessageSearch } from '../store/message-search.ts';
import type { TurnToolContext } from './context.ts';
import { defineTool } from './tool.ts';

const schema = z.object({
  query: z.string().trim().min(1).max(500).describe('Words to look for.'),
  limit: z.number().int().min(1).max(20).optional().describe('At most this many results (5).'),
});

const NOTES = ['USER.md', 'MEMORY.md'] as const;
const SNIPPET_CHARS = 240;
/** How earlier messages of tainted sessions are named as a source. */
const UNTRUSTED_PAST = 'memory_search: messages of sessions that had read outside content';

export interface MemorySearchContext extends Pick<TurnToolContext, 'storage' | 'timezone'> {
  pack: { name: string };
  /** The conversation's session key: all its sessions are searched, no other. */
  sessionKey: string;
  messages: Pick<MessageSearch, 'search'>;
}

/**
 * `memory_search`: full-text search over this pack's past conversation in this chat or topic
 * (every session of it) and its USER.md / MEMORY.md. Another pack's rows are never found:
 * the search is scoped to this pack's session key.
 */
export function createMemorySearchTool(ctx: MemorySearchContext) {
  return defineTool({
    name: 'memory_search',
    description:
      'Search what was said earlier in this chat (all past sessions) and your notes (USER.md, MEMORY.md). Returns dated snippets; use it before saying you do not remember.',
    schema,
    effect: 'read',
    async run({ query, limit = 5 }) {
      const notes = searchNotes(ctx, query).slice(0, limit);
      const found = ctx.messages.search({
        pack: ctx.pack.name,
        key: ctx.sessionKey,
        query,
        limit,
      });
      if (notes.length === 0 && found.length === 0) return `Nothing found for "${query}".`;
      const lines = [
        ...notes.map((n) => `- ${n.file}: ${n.text}`),
        ...found.filter((m) => !m.untrusted).map((m) => formatMessage(m, ctx.timezone)),
      ];
      // What was said after a session read outside content may carry it on: it comes back
      // in an envelope, which taints this session too (SPEC §17).
      const outside = found.filter((m) => m.untrusted).map((m) => formatMessage(m, ctx.timezone));
      if (outside.length > 0) lines.push(envelope(UNTRUSTED_PAST, outside.join('\n')));
      return lines.join('\n');
    },
  });
}

function formatMessage(m: FoundMessage, timezone: string): string {
  const who = m.role === 'user' ? 'user' : 'you';
  return `- ${dateTime(m.createdAt, timezone)} (session ${m.sessionId.slice(0, 8)}, ${who}): ${m.snippet}`;
}

/** `YYYY-MM-DD HH:mm` in the user's time zone. */
function dateTime(ms: number, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** The notes' lines that hold any of the query's words, those with most of them first. */
function searchNotes(ctx: Pick<MemorySearchContext, 'storage'>, query: string) {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 16);
  const hits: { file: string; text: string; score: number }[] = [];
  for (const file of NOTES) {
    for (const line of ctx.storage.readNote(file).split('\n')) {
      const lower = line.toLowerCase();
      const score = words.filter((w) => lower.includes(w)).length;
      if (score > 0) hits.push({ file, text: line.trim().slice(0, SNIPPET_CHARS), score });
    }
  }
  return hits.sort((a, b) => b.score - a.score);
}
