import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Address } from '../core/types.ts';
import type { Db } from './client.ts';
import { jobs } from './schema.ts';

export type JobRow = typeof jobs.$inferSelect;

/** Scheduled jobs; the `schedule` tool only ever sees its own pack's jobs in its own chat. */
export function createJobRepo(db: Db) {
  const owned = (pack: string, to: Address) =>
    and(
      eq(jobs.pack, pack),
      eq(jobs.chatId, to.chatId),
      to.threadId === undefined ? isNull(jobs.threadId) : eq(jobs.threadId, to.threadId),
    );

  return {
    create(
      fields: { pack: string; to: Address; schedule: string; skill?: string; prompt?: string },
      now: number,
    ): JobRow {
      const row = {
        id: randomUUID().slice(0, 8),
        pack: fields.pack,
        source: 'tool' as const,
        chatId: fields.to.chatId,
        threadId: fields.to.threadId ?? null,
        schedule: fields.schedule,
        skill: fields.skill ?? null,
        prompt: fields.prompt ?? null,
        enabled: true,
        nextRunAt: null,
        lastRunAt: null,
        createdAt: now,
      };
      db.insert(jobs).values(row).run();
      return row;
    },

    list(pack: string, to: Address): JobRow[] {
      return db.select().from(jobs).where(owned(pack, to)).orderBy(asc(jobs.createdAt)).all();
    },

    /** Pauses or resumes one of the pack's jobs in this chat; false when there is none. */
    setEnabled(id: string, pack: string, to: Address, enabled: boolean): boolean {
      const result = db
        .update(jobs)
        .set({ enabled })
        .where(and(eq(jobs.id, id), owned(pack, to)))
        .run();
      return result.changes > 0;
    },

    remove(id: string, pack: string, to: Address): boolean {
      return (
        db
          .delete(jobs)
          .where(and(eq(jobs.id, id), owned(pack, to)))
          .run().changes > 0
      );
    },
  };
}

export type JobRepo = ReturnType<typeof createJobRepo>;
