import { and, eq, gte, inArray } from 'drizzle-orm';
import type { Db } from './client.ts';
import { inboundUpdates } from './schema.ts';

export interface StoredUpdate {
  updateId: number;
  payload: unknown;
}

/** The durable inbox: every fetched update is written here before it is processed. */
export function createInboxRepo(db: Db) {
  return {
    /**
     * Writes the updates in one transaction and returns those seen for the first time;
     * an update id already stored (processed or in flight) is left out.
     */
    record(updates: StoredUpdate[], now: number): StoredUpdate[] {
      return db.transaction((tx) =>
        updates.filter((u) => {
          const result = tx
            .insert(inboundUpdates)
            .values({ updateId: u.updateId, payload: JSON.stringify(u.payload), receivedAt: now })
            .onConflictDoNothing()
            .run();
          return result.changes === 1;
        }),
      );
    },

    markDone(updateIds: readonly number[], now: number): void {
      if (updateIds.length === 0) return;
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
