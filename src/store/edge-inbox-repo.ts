import { and, asc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { KeyedItem as EdgeInboxItem, KeyedInbox } from '../core/inbox.ts';
import { redactSecretShapesIn } from '../core/redact.ts';
import type { Db } from './client.ts';
import { edgeInbox } from './schema.ts';

/**
 * The durable inbox of one edge (`platform`), in `edge_inbox`: an item is written before it
 * is handled and marked done in its reply's transaction, so a crash leaves it to be handled
 * again and nothing is handled twice. As in Telegram's inbox (inbox-repo.ts), what is stored
 * has anything shaped like a secret redacted: a token the owner pastes stays in the
 * conversation (`messages`) and nowhere else, and an item replayed after a crash carries the
 * redacted text.
 */
export function createEdgeInboxRepo(db: Db, platform: string): KeyedInbox {
  const p = sql.placeholder;
  const insert = db
    .insert(edgeInbox)
    .values({ platform, key: p('key'), payload: p('payload'), receivedAt: p('receivedAt') })
    .onConflictDoNothing()
    .prepare();

  return {
    /** Stores an item; false when its key is stored already (it is not handled again). */
    record(item: EdgeInboxItem): boolean {
      const payload = JSON.stringify(redactSecretShapesIn(item.payload));
      return insert.run({ key: item.key, payload, receivedAt: item.receivedAt }).changes === 1;
    },

    markDone(keys: readonly string[], now: number): void {
      if (keys.length === 0) return;
      db.update(edgeInbox)
        .set({ status: 'done', doneAt: now })
        .where(and(eq(edgeInbox.platform, platform), inArray(edgeInbox.key, [...keys])))
        .run();
    },

    done(keys: readonly string[]): string[] {
      if (keys.length === 0) return [];
      return db
        .select({ key: edgeInbox.key })
        .from(edgeInbox)
        .where(
          and(
            eq(edgeInbox.platform, platform),
            eq(edgeInbox.status, 'done'),
            inArray(edgeInbox.key, [...keys]),
          ),
        )
        .all()
        .map((row) => row.key);
    },

    /** Items not marked done that arrived at or after `since`, oldest first. */
    pending(since: number): EdgeInboxItem[] {
      return db
        .select()
        .from(edgeInbox)
        .where(
          and(
            eq(edgeInbox.platform, platform),
            eq(edgeInbox.status, 'pending'),
            gte(edgeInbox.receivedAt, since),
          ),
        )
        .orderBy(asc(edgeInbox.id))
        .all()
        .map((row) => ({
          key: row.key,
          payload: JSON.parse(row.payload),
          receivedAt: row.receivedAt,
        }));
    },
  };
}

export type EdgeInboxRepo = ReturnType<typeof createEdgeInboxRepo>;
