import { and, asc, count, eq, gt, lte, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { pairedUsers, pairingCodes } from './schema.ts';

/** A code given to a stranger in a private chat (SPEC §18). */
export type PairingCode = typeof pairingCodes.$inferSelect;
/** A user the owner let in: allowed as if listed in ALLOWED_USER_IDS. */
export type PairedUser = typeof pairedUsers.$inferSelect;

/** A user on a platform. */
export type UserKey = Pick<PairingCode, 'platform' | 'userId'>;

const codesOf = (user: UserKey) =>
  and(eq(pairingCodes.platform, user.platform), eq(pairingCodes.userId, user.userId));

/**
 * The pairing tables of the core database: pending codes and paired users. They survive a
 * restart and are in every backup. The limits and the meaning of "pending" (not expired)
 * are pairing.ts's; this only reads and writes rows.
 */
export function createPairingRepo(db: Db) {
  // Read on every event of a sender not on the allowlist: prepared once.
  const p = sql.placeholder;
  const pairedQuery = db
    .select({ userId: pairedUsers.userId })
    .from(pairedUsers)
    .where(and(eq(pairedUsers.platform, p('platform')), eq(pairedUsers.userId, p('userId'))))
    .prepare();
  return {
    /** Runs `fn` in one transaction (a count and the insert it allows). */
    atomically: <T>(fn: () => T): T => db.transaction(() => fn()),

    isPaired: (platform: string, userId: string): boolean =>
      pairedQuery.get({ platform, userId }) !== undefined,

    /** Deletes the codes that expired by `now`; returns how many. */
    purgeExpired(now: number): number {
      return db.delete(pairingCodes).where(lte(pairingCodes.expiresAt, now)).run().changes;
    },

    /** The code still valid at `now` that was given in this chat to this user. */
    validIn(user: UserKey, chatId: string, now: number): PairingCode | undefined {
      const codes = db.select().from(pairingCodes).where(codesOf(user)).all();
      return codes.find((c) => c.chatId === chatId && c.expiresAt > now);
    },

    /** Codes valid at `now`: all of them, or one user's. */
    countValid(now: number, user?: UserKey): number {
      const valid = gt(pairingCodes.expiresAt, now);
      const where = user ? and(valid, codesOf(user)) : valid;
      return db.select({ n: count() }).from(pairingCodes).where(where).get()?.n ?? 0;
    },

    /** Stores a new code; false when the code is taken already (drawn twice). */
    insertCode(row: PairingCode): boolean {
      return db.insert(pairingCodes).values(row).onConflictDoNothing().run().changes === 1;
    },

    code(code: string): PairingCode | undefined {
      return db.select().from(pairingCodes).where(eq(pairingCodes.code, code)).get();
    },

    deleteCode(code: string): void {
      db.delete(pairingCodes).where(eq(pairingCodes.code, code)).run();
    },

    /** Records a pairing, and drops the user's other codes: they are let in already. */
    pair(user: PairedUser): void {
      db.delete(pairingCodes)
        .where(and(eq(pairingCodes.platform, user.platform), eq(pairingCodes.userId, user.userId)))
        .run();
      db.insert(pairedUsers)
        .values(user)
        .onConflictDoUpdate({
          target: [pairedUsers.platform, pairedUsers.userId],
          set: { chatId: user.chatId, name: user.name, pairedAt: user.pairedAt },
        })
        .run();
    },

    /** Codes valid at `now`, the soonest to expire first. */
    valid(now: number): PairingCode[] {
      return db
        .select()
        .from(pairingCodes)
        .where(gt(pairingCodes.expiresAt, now))
        .orderBy(asc(pairingCodes.expiresAt))
        .all();
    },

    /** Paired users, in the order they were paired. */
    paired(): PairedUser[] {
      return db.select().from(pairedUsers).orderBy(asc(pairedUsers.pairedAt)).all();
    },

    /** Takes back the pairings of `userId` (on any platform); returns the rows removed. */
    unpair(userId: string): PairedUser[] {
      return db.delete(pairedUsers).where(eq(pairedUsers.userId, userId)).returning().all();
    },
  };
}

export type PairingRepo = ReturnType<typeof createPairingRepo>;
