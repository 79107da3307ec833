import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import { MAX_NESTING, nestedDeeperThan } from '../core/depth.ts';
import type { NumberedInbox, NumberedItem as StoredUpdate } from '../core/inbox.ts';
import { redactSecretShapesIn } from '../core/redact.ts';
import { type Db, transactionOf } from './client.ts';
import { inboundUpdates } from './schema.ts';

export interface InboxBounds {
  /** Done rows received longer ago than this are deleted. */
  keepDoneMs: number;
  /** Done rows older than the newest this many rows are deleted. */
  keepRows: number;
}

/**
 * How long done rows stay, for the one thing they are there for: a duplicate update id
 * (a redelivered webhook POST, a batch fetched again after a crash) is recognised. Either
 * comes within minutes and among the last hundred updates; a day and ten thousand rows
 * leave room to spare, and a flood of strangers cannot grow the table beyond that.
 */
export const INBOX_BOUNDS: InboxBounds = { keepDoneMs: 24 * 60 * 60 * 1000, keepRows: 10_000 };

/** Pruning runs on the first write, then after this long or this many new rows. */
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const PRUNE_EVERY_ROWS = 1000;

/**
 * The durable inbox: every fetched update is written here before it is processed. A row
 * marked done keeps no payload (only its update id and done mark): it is never replayed,
 * so nothing of it is kept — a stranger's denied message included (SPEC §2). Done rows are
 * pruned past `bounds`.
 */
export function createInboxRepo(db: Db, bounds: InboxBounds = INBOX_BOUNDS): NumberedInbox {
  // Prepared once: each update is written before its turn starts and marked in its reply's
  // transaction, and building these queries anew cost more than running them.
  const p = sql.placeholder;
  const insert = db
    .insert(inboundUpdates)
    .values({
      updateId: p('updateId'),
      payload: p('payload'),
      receivedAt: p('receivedAt'),
      status: p('status'),
      doneAt: p('doneAt'),
    })
    .onConflictDoNothing()
    .prepare();
  const markOne = db
    .update(inboundUpdates)
    .set({ status: 'done', doneAt: sql`${p('now')}`, payload: '' })
    .where(eq(inboundUpdates.updateId, p('updateId')))
    .prepare();
  const prune = db
    .delete(inboundUpdates)
    .where(
      and(
        eq(inboundUpdates.status, 'done'),
        sql`(${inboundUpdates.receivedAt} < ${p('cutoff')} OR ${inboundUpdates.updateId} <= (
          SELECT update_id FROM inbound_updates ORDER BY update_id DESC LIMIT 1 OFFSET ${p('keep')}))`,
      ),
    )
    .prepare();
  const transaction = transactionOf(db);
  let prunedAt: number | undefined;
  let addedSincePrune = 0;

  function pruneNow(now: number): void {
    prune.run({ cutoff: now - bounds.keepDoneMs, keep: bounds.keepRows });
    prunedAt = now;
    addedSincePrune = 0;
  }

  return {
    /**
     * Writes the updates in one transaction and returns those seen for the first time;
     * an update id already stored (processed or in flight) is left out. What is stored has
     * anything shaped like a secret redacted (a token the user pasted): the conversation
     * keeps the text, the raw copy does not. An update replayed after a crash carries the
     * redacted form. An update nested deeper than MAX_NESTING cannot be stored or read: its
     * row is written done, without payload, and it is returned for the consumer to settle
     * as malformed (consume.ts).
     */
    record(updates: StoredUpdate[], now: number): StoredUpdate[] {
      const fresh = transaction(() =>
        updates.filter((u) => {
          const malformed = nestedDeeperThan(u.payload, MAX_NESTING);
          const result = insert.run({
            updateId: u.updateId,
            payload: malformed ? '' : JSON.stringify(redactSecretShapesIn(u.payload)),
            receivedAt: now,
            status: malformed ? 'done' : 'pending',
            doneAt: malformed ? now : null,
          });
          return result.changes === 1;
        }),
      );
      addedSincePrune += fresh.length;
      const due = prunedAt === undefined || now - prunedAt >= PRUNE_EVERY_MS;
      if (due || addedSincePrune >= PRUNE_EVERY_ROWS) pruneNow(now);
      return fresh;
    },

    /** Marks the updates done and drops their payloads. */
    markDone(updateIds: readonly number[], now: number): void {
      if (updateIds.length === 1) markOne.run({ updateId: updateIds[0], now });
      else if (updateIds.length > 1)
        db.update(inboundUpdates)
          .set({ status: 'done', doneAt: now, payload: '' })
          .where(inArray(inboundUpdates.updateId, [...updateIds]))
          .run();
    },

    /**
     * Updates not marked done that arrived after `since`, oldest first. A row without a
     * payload gives `null`, which the consumer settles as malformed.
     */
    pending(since: number): StoredUpdate[] {
      return db
        .select()
        .from(inboundUpdates)
        .where(and(eq(inboundUpdates.status, 'pending'), gte(inboundUpdates.receivedAt, since)))
        .orderBy(inboundUpdates.updateId)
        .all()
        .map((row) => ({
          updateId: row.updateId,
          payload: row.payload === '' ? null : JSON.parse(row.payload),
        }));
    },
  };
}

export type InboxRepo = ReturnType<typeof createInboxRepo>;
