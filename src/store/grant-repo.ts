import { and, asc, eq } from 'drizzle-orm';
import type { Db } from './client.ts';
import { toolGrants } from './schema.ts';

/** An "Always allow <tool> in <pack>" answer (SPEC §17). */
export interface Grant {
  /** The home it holds for (SPEC §19): `owner`, or a home's key. */
  home: string;
  pack: string;
  tool: string;
  grantedAt: number;
}

/**
 * The standing approvals, per home (SPEC §17, §19), in the core database: they survive a restart and are in
 * every backup. Read on each call that would ask, so `/approvals reset` takes effect at once.
 */
export function createGrantRepo(db: Db) {
  return {
    has(home: string, pack: string, tool: string): boolean {
      const row = db
        .select({ tool: toolGrants.tool })
        .from(toolGrants)
        .where(and(eq(toolGrants.home, home), eq(toolGrants.pack, pack), eq(toolGrants.tool, tool)))
        .get();
      return row !== undefined;
    },
    grant(home: string, pack: string, tool: string, at: number): void {
      db.insert(toolGrants).values({ home, pack, tool, grantedAt: at }).onConflictDoNothing().run();
    },
    /** The grants of one home. */
    list(home: string): Grant[] {
      return db
        .select()
        .from(toolGrants)
        .where(eq(toolGrants.home, home))
        .orderBy(asc(toolGrants.pack), asc(toolGrants.tool))
        .all();
    },
    /** Removes every grant of one home; returns how many there were. */
    reset(home: string): number {
      return db.delete(toolGrants).where(eq(toolGrants.home, home)).run().changes;
    },
  };
}

export type GrantRepo = ReturnType<typeof createGrantRepo>;
