import { and, desc, eq, gte, inArray, ne } from 'drizzle-orm';
import type {
  EdgeConversation,
  EdgeConversations,
  StoredLine,
} from '../core/edge-conversations.ts';
import { redactSecretShapes } from '../core/redact.ts';
import { addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import { messages, sessions, webConversations, webFailures } from './schema.ts';

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

    // Newest first to take the last `limit`, then turned back into reading order; the failure
    // lines of that stretch go after the owner's message they answered (else by time).
    history(address, limit) {
      const lines = db
        .select({
          role: messages.role,
          text: messages.content,
          source: messages.sourceKey,
          at: messages.createdAt,
        })
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
        .map(({ source, ...line }) => (source ? { ...line, source } : line) as StoredLine);
      return withFailures(lines, failuresSince(address.chatId, lines[0]?.at ?? 0)).slice(-limit);
    },

    failed(id, source, text, at) {
      db.insert(webFailures).values({ conversation: id, source, text, createdAt: at }).run();
    },

    unsay(address, source) {
      const from = db
        .select({ id: messages.id, sessionId: messages.sessionId })
        .from(messages)
        .innerJoin(sessions, eq(sessions.id, messages.sessionId))
        .where(and(eq(sessions.address, addressKey(address)), eq(messages.sourceKey, source)))
        .get();
      return db.transaction((tx) => {
        tx.delete(webFailures)
          .where(and(eq(webFailures.conversation, address.chatId), eq(webFailures.source, source)))
          .run();
        if (!from) return 0;
        return tx
          .delete(messages)
          .where(and(eq(messages.sessionId, from.sessionId), gte(messages.id, from.id)))
          .run().changes;
      });
    },
  };

  function failuresSince(id: string, since: number): StoredLine[] {
    return db
      .select({ text: webFailures.text, source: webFailures.source, at: webFailures.createdAt })
      .from(webFailures)
      .where(and(eq(webFailures.conversation, id), gte(webFailures.createdAt, since)))
      .orderBy(webFailures.id)
      .all()
      .map((f) => ({ role: 'assistant', text: f.text, at: f.at, failed: true, source: f.source }));
  }
}

/**
 * `failures` placed among `lines`: each at the end of the exchange of the owner's message it
 * answered (before the owner's next message), else where its time falls.
 */
function withFailures(lines: StoredLine[], failures: StoredLine[]): StoredLine[] {
  const merged = [...lines];
  for (const failure of failures) {
    const { source, ...line } = failure;
    const asked = merged.findLastIndex((l) => l.role === 'user' && l.source === source);
    const at =
      asked >= 0
        ? merged.findIndex((l, i) => i > asked && l.role === 'user')
        : merged.findIndex((l) => l.at > failure.at);
    merged.splice(at < 0 ? merged.length : at, 0, line);
  }
  return merged;
}
