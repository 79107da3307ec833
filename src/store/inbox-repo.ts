import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import { redactSecretShapesIn } from '../core/redact.ts';
import type { Db } from './client.ts';
import { inboundUpdates } from './schema.ts';

export interface StoredUpdate {
  updateId: number;
  payload: unknown;
}

/** The durable inbox: every fetched update is written here before it is processed. */
export function createInboxRepo(db: Db) {
  // Prepared once: each update is written before its turn starts and marked in its reply's
  // transaction, and building these queries anew cost more than running them.
  const p = sql.placeholder;
  const insert = db
    .insert(inboundUpdates)
    .values({ updateId: p('updateId'), payload: p('payload'), receivedAt: p('receivedAt') })
    .onConflictDoNothing()
    .prepare();
  const markOne = db
    .update(inboundUpdates)
    .set({ status: 'done', doneAt: sql`${p('now')}` })
    .where(eq(inboundUpdates.updateId, p('updateId')))
    .prepare();

  return {
    /**
     * Writes the updates in one transaction and returns those seen for the first time;
     * an update id already stored (processed or in flight) is left out. What is stored has
     * anything shaped like a secret redacted (a token the user pasted): the conversation
     * keeps the text, the raw copy does not. An update replayed after a crash carries the
     * redacted form.
     */
    record(updates: StoredUpdate[], now: number): StoredUpdate[] {
      return db.transaction(() =>
        updates.filter((u) => {
          const payload = JSON.stringify(redactSecretShapesIn(u.payload));
          const result = insert.run({ updateId: u.updateId, payload, receivedAt: now });
          return result.changes === 1;
        }),
      );
    },

    markDone(updateIds: readonly number[], now: number): void {
      if (updateIds.length === 1) markOne.run({ updateId: updateIds[0], now });
      else if (updateIds.length > 1)
        db.update(inboundUpdates)
          .set({ status: 'done', doneAt: now })
          .where(inArray(inboundUpdates.updateId, [...updateIds]))
          .run();
    },

    /** Updates not marked done that arrived after `since`, oldest first. */
    pending(since: number): StoredUpdate[] {
      return db
        .select()
        .from(inboundUpdates)
        .where(and(eq(inboundUpdates.status, 'pending'), gte(inboundUpdates.receivedAt, since)))
        .orderBy(inboundUpdates.updateId)
        .all()
        .map((row) => ({ updateId: row.updateId, payload: JSON.parse(row.payload) }));
    },
  };
}

export type InboxRepo = ReturnType<typeof createInboxRepo>;
