import type { Clock } from '../core/clock.ts';
import type { HttpRoute as Route } from '../core/edge.ts';
import type { EdgeConversations } from '../core/edge-conversations.ts';
import type { Deletions } from './conversation-deletion.ts';
import { type ExportFormat, exportConversation } from './conversation-export.ts';
import { addressOf, type Conversations, MAX_TITLE_CHARS, NEW_PER_MINUTE } from './conversations.ts';

/** A JSON answer, or a file to download (an export). */
export type Answer =
  | { status: number; body: unknown }
  | { status: 200; file: { name: string; type: string; body: string } };
const answer = (status: number, body: unknown): Answer => ({ status, body });

/** The answer to one conversation too many in a minute (the page shows it and keeps the list). */
export const TOO_MANY_NEW = answer(429, {
  error: `You made ${NEW_PER_MINUTE} conversations in the last minute. Wait a moment before making another.`,
});

/** The conversation a request names, when it names one that does not exist. */
export const NO_SUCH_CONVERSATION = answer(404, { error: 'There is no such conversation.' });

/** The most conversations a search answers with. */
const MAX_FOUND = 50;

/**
 * The id a request names: `c` in the query (GET, upload) or `conversation` in the JSON body.
 * undefined: none named (the page opens the most recently used); null: not a string.
 */
export function namedIn(value: unknown): string | undefined | null {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? value : null;
}

export interface ConversationRoutesDeps {
  conversations: Conversations;
  deletions: Deletions;
  store: Pick<EdgeConversations, 'search' | 'lines'>;
  clock: Clock;
}

/** The routes below, for the dashboard's router (all behind its token). */
export const CONVERSATION_ROUTES = (base: string): Route[] => [
  { method: 'GET', path: `${base}/conversations` },
  { method: 'POST', path: `${base}/conversations` },
  { method: 'POST', path: `${base}/rename` },
  { method: 'POST', path: `${base}/pin` },
  { method: 'POST', path: `${base}/delete` },
  { method: 'POST', path: `${base}/undo` },
  { method: 'GET', path: `${base}/deleted` },
  { method: 'GET', path: `${base}/search` },
  { method: 'GET', path: `${base}/export` },
];

/**
 * The list of conversations and what is done to one (SPEC §16):
 * `GET /chat/conversations` (pinned first, then the most recently used),
 * `POST /chat/conversations` (`{}`: a new, empty one; 429 past NEW_PER_MINUTE a minute),
 * `POST /chat/rename` (`{conversation, title}`), `POST /chat/pin` (`{conversation, pinned}`),
 * `POST /chat/delete` (`{conversation}`: gone from the list, undoable for `undo_ms`),
 * `POST /chat/undo` (`{conversation}`: back, while the undo lasts; 409 after),
 * `GET /chat/deleted?c=` (what emptying it removed: 200 `{messages, uploads, jobs}`, or 202
 * while its undo lasts), `GET /chat/search?q=` (`{found: [{id, title, pinned, snippet?}]}`) and
 * `GET /chat/export?c=&format=md|json` (a download).
 */
export function createConversationRoutes(deps: ConversationRoutesDeps) {
  const { conversations, deletions } = deps;
  const shown = (id: string) => conversations.list().find((c) => c.id === id);
  const named = (value: unknown) => {
    const id = namedIn(value);
    return typeof id === 'string' && conversations.get(id) ? id : undefined;
  };

  function rename(body: Record<string, unknown>): Answer {
    const id = named(body.conversation);
    if (!id) return NO_SUCH_CONVERSATION;
    const { title } = body;
    if (typeof title !== 'string' || title.trim() === '' || title.trim().length > MAX_TITLE_CHARS)
      return answer(400, { error: `A title holds 1 to ${MAX_TITLE_CHARS} characters.` });
    conversations.rename(id, title);
    return answer(200, { conversation: shown(id) });
  }

  const posts: Record<string, (body: Record<string, unknown>) => Answer> = {
    '/conversations': () => {
      const made = conversations.make();
      if (!made) return TOO_MANY_NEW;
      const { id, title, updatedAt, pinned } = made;
      return answer(201, { conversation: { id, title, updatedAt, pinned } });
    },
    '/rename': rename,
    '/pin': (body) => {
      const id = named(body.conversation);
      if (!id) return NO_SUCH_CONVERSATION;
      if (typeof body.pinned !== 'boolean')
        return answer(400, { error: 'Say whether it is pinned (true or false).' });
      conversations.pin(id, body.pinned);
      return answer(200, { conversation: shown(id) });
    },
    '/delete': (body) => {
      const id = named(body.conversation);
      if (!id || !deletions.remove(id)) return NO_SUCH_CONVERSATION;
      return answer(202, { undo_ms: deletions.undoMs });
    },
    '/undo': (body) => {
      const id = namedIn(body.conversation);
      if (typeof id !== 'string' || !deletions.undo(id))
        return answer(409, { error: 'It can no longer be brought back.' });
      return answer(200, { conversation: shown(id) });
    },
  };

  const gets: Record<string, (query: URLSearchParams) => Answer> = {
    '/conversations': () => answer(200, { conversations: conversations.list() }),
    '/deleted': (query) => {
      const id = query.get('c') ?? '';
      const removed = deletions.removed(id);
      if (removed) return answer(200, removed);
      return deletions.undoable(id) ? answer(202, { pending: true }) : NO_SUCH_CONVERSATION;
    },
    '/search': (query) => {
      const listed = new Map(conversations.list().map((c) => [c.id, c]));
      const found = deps.store.search(query.get('q') ?? '', addressOf, MAX_FOUND).flatMap((f) => {
        const c = listed.get(f.id);
        return c ? [{ ...f, title: c.title, pinned: c.pinned }] : [];
      });
      return answer(200, { found });
    },
    '/export': (query) => {
      const id = named(query.get('c'));
      const format = query.get('format') ?? 'md';
      if (!id) return NO_SUCH_CONVERSATION;
      if (format !== 'md' && format !== 'json')
        return answer(400, { error: 'Export as md or json.' });
      const conversation = conversations.get(id)!;
      const lines = deps.store.lines(addressOf(id));
      const file = exportConversation(
        conversation,
        lines,
        format as ExportFormat,
        deps.clock.now(),
      );
      return { status: 200, file };
    },
  };

  return {
    /** The answer to `POST /chat<path>`; undefined for a path of another part. */
    post: (path: string, body: Record<string, unknown>) => posts[path]?.(body),
    /** The answer to `GET /chat<path>`; undefined for a path of another part. */
    get: (path: string, query: URLSearchParams) => gets[path]?.(query),
  };
}

export type ConversationRoutes = ReturnType<typeof createConversationRoutes>;
