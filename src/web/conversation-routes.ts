import { type Conversations, MAX_TITLE_CHARS, NEW_PER_MINUTE } from './conversations.ts';

type Answer = { status: number; body: unknown };
const answer = (status: number, body: unknown): Answer => ({ status, body });

/** The answer to one conversation too many in a minute (the page shows it and keeps the list). */
export const TOO_MANY_NEW = answer(429, {
  error: `You made ${NEW_PER_MINUTE} conversations in the last minute. Wait a moment before making another.`,
});

/** The conversation a request names, when it names one that does not exist. */
export const NO_SUCH_CONVERSATION = answer(404, { error: 'There is no such conversation.' });

/**
 * The id a request names: `c` in the query (GET, upload) or `conversation` in the JSON body.
 * undefined: none named (the page opens the most recently used); null: not a string.
 */
export function namedIn(value: unknown): string | undefined | null {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? value : null;
}

/** `GET /chat/conversations`: the list, the most recently used first. */
export function listAnswer(conversations: Conversations): Answer {
  return answer(200, { conversations: conversations.list() });
}

/**
 * `POST /chat/conversations` (`{}`: a new, empty one, answered with its id and title; 429
 * past NEW_PER_MINUTE a minute) and
 * `POST /chat/rename` (`{conversation, title}`); undefined for any other path.
 */
export function conversationPost(
  path: string,
  body: Record<string, unknown>,
  conversations: Conversations,
): Answer | undefined {
  if (path === '/conversations') {
    const made = conversations.make();
    if (!made) return TOO_MANY_NEW;
    const { id, title, updatedAt } = made;
    return answer(201, { conversation: { id, title, updatedAt } });
  }
  if (path !== '/rename') return undefined;
  const id = namedIn(body.conversation);
  if (typeof id !== 'string' || !conversations.get(id)) return NO_SUCH_CONVERSATION;
  const { title } = body;
  if (typeof title !== 'string' || title.trim() === '' || title.trim().length > MAX_TITLE_CHARS)
    return answer(400, { error: `A title holds 1 to ${MAX_TITLE_CHARS} characters.` });
  conversations.rename(id, title);
  return answer(200, { conversation: conversations.list().find((c) => c.id === id) });
}
