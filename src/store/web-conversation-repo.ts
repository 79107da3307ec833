import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import type {
  EdgeConversation,
  EdgeConversations,
  StoredLine,
} from '../core/edge-conversations.ts';
import { redactSecretShapes } from '../core/redact.ts';
import { addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import { messages, sessions, webConversations } from './schema.ts';

/**
 * The web chat's conversations in `web_conversations` (migration 0012). A title is stored
 * redacted (SPEC §9): `redact` hides the configured secrets, and anything shaped like a
 * secret goes too, so a key pasted as a first line is kept only in `messages`, never in the
 * list, the sidebar or a backup's copy of this table.
 */
export function createWebConversationRepo(
  db: Db,
  redact: (text: string) => string = (text) => text,
): EdgeConversations {
  const row = (r: typeof webConversations.$inferSelect): EdgeConversation => ({ ...r });
  const stored = (title: string) => redactSecretShapes(redact(title));
  return {
    list: () =>
      db
        .select()
        .from(webConversations)
        .orderBy(desc(webConversations.updatedAt), desc(webConversations.createdAt))
        .all()
        .map(row),

    get(id) {
      const found = db.select().from(webConversations).where(eq(webConversations.id, id)).get();
      return found ? row(found) : undefined;
    },

    create(conversation) {
      db.insert(webConversations)
        .values({ ...conversation, title: stored(conversation.title) })
        .run();
    },

    rename: (id, title, titled) =>
      db
        .update(webConversations)
        .set({ title: stored(title), titled })
        .where(eq(webConversations.id, id))
        .run().changes === 1,

    touch(id, now) {
      db.update(webConversations).set({ updatedAt: now }).where(eq(webConversations.id, id)).run();
    },

    // Newest first to take the last `limit`, then turned back into reading order.
    history: (address, limit) =>
      db
        .select({ role: messages.role, text: messages.content, source: messages.sourceKey })
        .from(messages)
        .innerJoin(sessions, eq(sessions.id, messages.sessionId))
        .where(
          and(
            eq(sessions.address, addressKey(address)),
            eq(sessions.kind, 'chat'),
            inArray(messages.role, ['user', 'assistant']),
            ne(messages.content, ''),
          ),
        )
        .orderBy(desc(messages.id))
        .limit(limit)
        .all()
        .reverse()
        .map(({ source, ...line }) => (source ? { ...line, source } : line) as StoredLine),
  };
}
