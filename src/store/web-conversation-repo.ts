import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, ne } from 'drizzle-orm';
import type {
  EdgeConversation,
  EdgeConversations,
  ExportedLine,
  StoredLine,
} from '../core/edge-conversations.ts';
import { redactSecretShapes } from '../core/redact.ts';
import { type Address, addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import { ftsExpressions } from './message-search.ts';
import {
  conversationRoutes,
  jobs,
  messages,
  sessions,
  webConversations,
  webFailures,
} from './schema.ts';
import { indexPending } from './search-index.ts';

/**
 * The web chat's conversations in `web_conversations` (migration 0012). A title is stored
 * redacted (SPEC §9): `redact` hides the configured secrets, and anything shaped like a
 * secret goes too, so a key pasted as a first line is kept only in `messages`, never in the
 * list, the sidebar or a backup's copy of this table. A deleted one keeps its row (and
 * title) once emptied (migration 0019): the ledger's rows stay named by it.
 */
export function createWebConversationRepo(
  db: Db,
  redact: (text: string) => string = (text) => text,
): EdgeConversations {
  const row = (r: typeof webConversations.$inferSelect): EdgeConversation => ({ ...r });
  const stored = (title: string) => redactSecretShapes(redact(title));
  const chatLines = (address: Address) =>
    and(
      eq(sessions.address, addressKey(address)),
      eq(sessions.kind, 'chat'),
      inArray(messages.role, ['user', 'assistant']),
      ne(messages.content, ''),
    );
  const found = db.$client.prepare(`
    SELECT s.address AS address,
           snippet(messages_search, 0, '[', ']', '…', 12) AS snippet
    FROM messages_search
    JOIN messages m ON m.id = messages_search.rowid
    JOIN sessions s ON s.id = m.session_id
    WHERE messages_search MATCH ? AND s.kind = 'chat'
      AND s.address IN (SELECT value FROM json_each(?))
    ORDER BY messages_search.rowid DESC
    LIMIT 200`);
  const list = () =>
    db
      .select()
      .from(webConversations)
      .where(isNull(webConversations.deletedAt))
      .orderBy(
        desc(webConversations.pinned),
        desc(webConversations.updatedAt),
        desc(webConversations.createdAt),
      )
      .all()
      .map(row);
  return {
    list,

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

    pin: (id, pinned) =>
      db.update(webConversations).set({ pinned }).where(eq(webConversations.id, id)).run()
        .changes === 1,

    modelTitle: (id, title) =>
      db
        .update(webConversations)
        .set({ title: stored(title), modelTitled: true })
        .where(and(eq(webConversations.id, id), eq(webConversations.titled, false)))
        .run().changes === 1,

    hide: (id, at) =>
      db.update(webConversations).set({ deletedAt: at }).where(eq(webConversations.id, id)).run()
        .changes === 1,

    purge(id, address) {
      const key = addressKey(address);
      return db.transaction((tx) => {
        const gone = tx
          .select({ id: sessions.id })
          .from(sessions)
          .where(eq(sessions.address, key))
          .all()
          .map((s) => s.id);
        // What the page showed (not tool calls) is what the owner is told was removed.
        const removed = tx
          .select({ id: messages.id })
          .from(messages)
          .innerJoin(sessions, eq(sessions.id, messages.sessionId))
          .where(chatLines(address))
          .all().length;
        // Messages first: the search index's trigger reads their session.
        if (gone.length > 0) tx.delete(messages).where(inArray(messages.sessionId, gone)).run();
        tx.delete(sessions).where(eq(sessions.address, key)).run();
        tx.delete(conversationRoutes).where(eq(conversationRoutes.address, key)).run();
        tx.delete(webFailures).where(eq(webFailures.conversation, id)).run();
        const dropped = tx
          .delete(jobs)
          .where(and(eq(jobs.platform, address.platform), eq(jobs.chatId, address.chatId)))
          .run().changes;
        return { messages: removed, jobs: dropped };
      });
    },

    unpurged: () =>
      db
        .select()
        .from(webConversations)
        .where(isNotNull(webConversations.deletedAt))
        .all()
        .map(row),

    search(query, addressOf, limit) {
      const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
      if (words.length === 0) return [];
      const shown = list();
      const results = new Map<string, { id: string; snippet?: string }>();
      for (const c of shown)
        if (words.every((w) => c.title.toLowerCase().includes(w))) results.set(c.id, { id: c.id });
      const expressions = ftsExpressions(query);
      if (expressions) {
        const byKey = new Map(shown.map((c) => [addressKey(addressOf(c.id)), c.id]));
        indexPending(db.$client);
        const rows = found.all(
          `content:(${expressions.every})`,
          JSON.stringify([...byKey.keys()]),
        ) as { address: string; snippet: string }[];
        for (const { address, snippet } of rows) {
          const id = byKey.get(address);
          if (id !== undefined && !results.has(id)) results.set(id, { id, snippet });
        }
      }
      // In the list's order: pinned first, then the most recently used.
      const order = new Map(shown.map((c, i) => [c.id, i]));
      return [...results.values()]
        .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
        .slice(0, limit);
    },

    lines: (address) =>
      db
        .select({ role: messages.role, text: messages.content, at: messages.createdAt })
        .from(messages)
        .innerJoin(sessions, eq(sessions.id, messages.sessionId))
        .where(chatLines(address))
        .orderBy(asc(messages.id))
        .all() as ExportedLine[],

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
        .where(chatLines(address))
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
