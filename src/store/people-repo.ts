import { and, asc, eq, or, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { chatHomes, jobs, people, personIds } from './schema.ts';

/** A person as `/people` lists them (SPEC §19). */
export type Person = typeof people.$inferSelect;

/** The owner's row id: the one person who is everyone on every channel's owner. */
export const OWNER = 'owner';

/** Who a conversation's home belongs to (a row of `chat_homes`). */
export type HomeRow = typeof chatHomes.$inferSelect;

/**
 * The people tables of the core database: who they are, their ids on each edge, and whose
 * home each conversation uses. Rows only: what a row means is the people module's.
 */
export function createPeopleRepo(db: Db) {
  const p = sql.placeholder;
  // Read on every turn: prepared once.
  const idQuery = db
    .select({ person: personIds.person })
    .from(personIds)
    .where(and(eq(personIds.platform, p('platform')), eq(personIds.senderId, p('senderId'))))
    .prepare();
  const homeQuery = db
    .select()
    .from(chatHomes)
    .where(
      and(
        eq(chatHomes.platform, p('platform')),
        eq(chatHomes.chatId, p('chatId')),
        eq(chatHomes.threadId, p('threadId')),
      ),
    )
    .prepare();
  const personQuery = db
    .select()
    .from(people)
    .where(eq(people.id, p('id')))
    .prepare();
  return {
    /** The person whose id on `platform` is `senderId`, if they were seen. */
    personOf: (platform: string, senderId: string): string | undefined =>
      idQuery.get({ platform, senderId })?.person,

    /** The owner's recorded sender id on `platform`. */
    ownerOn(platform: string): string | undefined {
      return db
        .select({ senderId: personIds.senderId })
        .from(personIds)
        .where(and(eq(personIds.platform, platform), eq(personIds.person, OWNER)))
        .get()?.senderId;
    },

    /** The owner's private chat on `platform`, once they wrote there. */
    ownerChat(platform: string): { senderId: string; chatId: string } | undefined {
      const row = db
        .select({ senderId: personIds.senderId, chatId: personIds.chatId })
        .from(personIds)
        .where(and(eq(personIds.platform, platform), eq(personIds.person, OWNER)))
        .get();
      return row?.chatId ? { senderId: row.senderId, chatId: row.chatId } : undefined;
    },

    /** Where `senderId` talks to the bot privately on `platform`. */
    setChat(platform: string, senderId: string, chatId: string): void {
      db.update(personIds)
        .set({ chatId })
        .where(and(eq(personIds.platform, platform), eq(personIds.senderId, senderId)))
        .run();
    },

    /** Read on a person's every turn (their cap): prepared once. */
    get: (id: string): Person | undefined => personQuery.get({ id }),

    list: (): Person[] => db.select().from(people).orderBy(asc(people.createdAt)).all(),

    /** Adds a person (or the owner) unless `id` exists; ties `senderId` on `platform` to them. */
    add(row: typeof people.$inferInsert, platform?: string, senderId?: string): void {
      db.transaction(() => {
        db.insert(people).values(row).onConflictDoNothing().run();
        if (platform !== undefined && senderId !== undefined)
          db.insert(personIds)
            .values({ platform, senderId, person: row.id })
            .onConflictDoNothing()
            .run();
      });
    },

    update(id: string, set: Partial<typeof people.$inferInsert>): void {
      db.update(people).set(set).where(eq(people.id, id)).run();
    },

    /** The edges' ids of a person: `{platform, senderId}`. */
    idsOf(id: string): { platform: string; senderId: string }[] {
      return db
        .select({ platform: personIds.platform, senderId: personIds.senderId })
        .from(personIds)
        .where(eq(personIds.person, id))
        .all();
    },

    /** Removes a person's rows (`/people purge`): their ledger rows keep their id. */
    delete(id: string): void {
      db.transaction(() => {
        db.delete(personIds).where(eq(personIds.person, id)).run();
        db.delete(people).where(eq(people.id, id)).run();
      });
    },

    /**
     * Pauses a removed person's jobs (`paused_by` 'removed'): those they created and those of
     * their private chats. Returns how many.
     */
    pauseJobsOf(id: string, chats: readonly { platform: string; chatId: string }[]): number {
      const theirs = [
        eq(jobs.person, id),
        ...chats.map((c) => and(eq(jobs.platform, c.platform), eq(jobs.chatId, c.chatId))),
      ];
      return db
        .update(jobs)
        .set({ enabled: false, pausedBy: 'removed' })
        .where(and(or(...theirs), eq(jobs.enabled, true)))
        .run().changes;
    },

    /** The home row of one chat (`threadId` '' for the chat as a whole). */
    home: (platform: string, chatId: string, threadId: string): HomeRow | undefined =>
      homeQuery.get({ platform, chatId, threadId }),

    setHome(row: HomeRow): void {
      db.insert(chatHomes)
        .values(row)
        .onConflictDoUpdate({
          target: [chatHomes.platform, chatHomes.chatId, chatHomes.threadId],
          set: { kind: row.kind, ref: row.ref },
        })
        .run();
    },

    /** The private chats whose home is `person`'s. */
    chatsOf(person: string): HomeRow[] {
      return db
        .select()
        .from(chatHomes)
        .where(and(eq(chatHomes.kind, 'person'), eq(chatHomes.ref, person)))
        .all();
    },
  };
}

export type PeopleRepo = ReturnType<typeof createPeopleRepo>;
