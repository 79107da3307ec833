import { and, asc, eq, ne } from 'drizzle-orm';
import type { Address } from '../core/types.ts';
import type { Db } from './client.ts';
import { outbox } from './schema.ts';

export type OutboxRow = typeof outbox.$inferSelect;

/** Rows of the `outbox` table: written before a send, marked with the message id after. */
export function createOutboxRepo(db: Db) {
  return {
    /** Writes a pending row for `to`; the row records its channel (`to.platform`). */
    insert(to: Address, kind: string, payload: unknown, now: number): number {
      const row = db
        .insert(outbox)
        .values({
          channel: to.platform,
          chatId: to.chatId,
          threadId: to.threadId ?? null,
          kind,
          payload: JSON.stringify(payload),
          createdAt: now,
        })
        .returning({ id: outbox.id })
        .get();
      return row.id;
    },

    get(id: number): OutboxRow | undefined {
      return db.select().from(outbox).where(eq(outbox.id, id)).get();
    },

    markSent(id: number, messageId: number | null, now: number): void {
      db.update(outbox)
        .set({ status: 'sent', messageId, sentAt: now })
        .where(eq(outbox.id, id))
        .run();
    },

    /** Records a failed attempt; `final` rows are never tried again (Telegram refused them). */
    markAttempt(id: number, error: string, final: boolean): void {
      const row = this.get(id);
      db.update(outbox)
        .set({
          attempts: (row?.attempts ?? 0) + 1,
          lastError: error,
          ...(final ? { status: 'failed' as const } : {}),
        })
        .where(eq(outbox.id, id))
        .run();
    },

    /** Unsent rows of one channel, in the order they were written. */
    unsent(channel: string): OutboxRow[] {
      return db
        .select()
        .from(outbox)
        .where(
          and(eq(outbox.channel, channel), ne(outbox.status, 'sent'), ne(outbox.status, 'failed')),
        )
        .orderBy(asc(outbox.id))
        .all();
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
