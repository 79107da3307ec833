import { and, eq, sql } from 'drizzle-orm';
import { addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import { chatHomes, conversationRoutes, jobs, outbox, sessions } from './schema.ts';
import { indexPending } from './search-index.ts';

/**
 * What changes with a group itself: a group moved to a new chat id (a Telegram group
 * upgraded to a supergroup): its routes, sessions, jobs and unsent messages go with it, so
 * the conversations carry on where they were, in the home they used. (A topic's jobs pause in the job repo.)
 */
export function createChatMoves(db: Db) {
  return {
    /** Moves everything of chat `from` to chat `to` on `platform`, in one transaction. */
    move(platform: string, from: string, to: string): void {
      const rename = renamer(platform, from, to);
      db.transaction((tx) => {
        // Re-tagging takes every message out of the index and puts it back: all indexed first.
        indexPending(db.$client);
        for (const r of tx.select().from(conversationRoutes).where(inChat(platform, from)).all())
          tx.update(conversationRoutes)
            .set({ address: rename(r.address), chatId: to })
            .where(eq(conversationRoutes.address, r.address))
            .run();
        for (const s of tx.select().from(sessions).all()) {
          const key = rename(s.key);
          const address = rename(s.address);
          if (key === s.key && address === s.address) continue;
          // The search index tags each message with its session's pack and key: re-tag it.
          if (key !== s.key) tx.run(unindexSession(s.id));
          tx.update(sessions).set({ key, address }).where(eq(sessions.id, s.id)).run();
          if (key !== s.key) tx.run(indexSession(s.id));
        }
        for (const j of tx.select().from(jobs).where(eq(jobs.platform, platform)).all()) {
          if (j.chatId !== from) continue;
          const manifestKey = j.manifestKey === null ? null : rename(j.manifestKey);
          tx.update(jobs).set({ chatId: to, manifestKey }).where(eq(jobs.id, j.id)).run();
        }
        // The home goes with the group: its folder is named once, so only the row moves.
        tx.update(chatHomes)
          .set({ chatId: to })
          .where(and(eq(chatHomes.platform, platform), eq(chatHomes.chatId, from)))
          .run();
        tx.update(outbox)
          .set({ chatId: to })
          .where(
            and(
              eq(outbox.channel, platform),
              eq(outbox.chatId, from),
              eq(outbox.status, 'pending'),
            ),
          )
          .run();
      });
    },
  };
}

export type ChatMoves = ReturnType<typeof createChatMoves>;

/**
 * The search index's rows of one session's messages, removed and added again with the scope
 * the session has at the time (as the triggers of migrations/0007_memory_search.sql do).
 */
const unindexSession = (sessionId: string) => sql`
  INSERT INTO messages_search (messages_search, rowid, content, scope)
  SELECT 'delete', m.id, m.content, 's' || hex(s.pack || '|' || s.key)
  FROM messages m JOIN sessions s ON s.id = m.session_id
  WHERE m.session_id = ${sessionId} AND m.role IN ('user', 'assistant') AND m.content != ''`;
const indexSession = (sessionId: string) => sql`
  INSERT INTO messages_search (rowid, content, scope)
  SELECT m.id, m.content, 's' || hex(s.pack || '|' || s.key)
  FROM messages m JOIN sessions s ON s.id = m.session_id
  WHERE m.session_id = ${sessionId} AND m.role IN ('user', 'assistant') AND m.content != ''`;

const inChat = (platform: string, chatId: string) =>
  and(eq(conversationRoutes.platform, platform), eq(conversationRoutes.chatId, chatId));

/**
 * Rewrites the address key of chat `from` inside a stored key (`tg:<chat>[:<thread>]`, alone
 * or within a session or manifest key) to chat `to`; other chats (even `-1001…` when moving
 * `-100`) are left alone.
 */
function renamer(platform: string, from: string, to: string): (key: string) => string {
  const old = addressKey({ platform, chatId: from });
  const pattern = new RegExp(`(^|:)${escapeRegExp(old)}(?=:|$)`, 'g');
  const next = addressKey({ platform, chatId: to });
  return (key) => key.replace(pattern, (_, lead: string) => `${lead}${next}`);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
