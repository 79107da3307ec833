import { and, asc, eq } from 'drizzle-orm';
import type { Db } from './client.ts';
import { toolGrants } from './schema.ts';

/** An "Always allow <tool> in <pack>" answer (SPEC §17). */
export interface Grant {
  pack: string;
  tool: string;
  grantedAt: number;
}

/**
 * The owner's standing approvals, in the core database: they survive a restart and are in
 * every backup. Read on each call that would ask, so `/approvals reset` takes effect at once.
 */
export function createGrantRepo(db: Db) {
  return {
    has(pack: string, tool: string): boolean {
      const row = db
        .select({ tool: toolGrants.tool })
        .from(toolGrants)
        .where(and(eq(toolGrants.pack, pack), eq(toolGrants.tool, tool)))
        .get();
      return row !== undefined;
    },
    grant(pack: string, tool: string, at: number): void {
      db.insert(toolGrants).values({ pack, tool, grantedAt: at }).onConflictDoNothing().run();
    },
    list(): Grant[] {
      return db.select().from(toolGrants).orderBy(asc(toolGrants.pack), asc(toolGrants.tool)).all();
    },
    /** Removes every grant; returns how many there were. */
    reset(): number {
      return db.delete(toolGrants).run().changes;
    },
  };
}

export type GrantRepo = ReturnType<typeof createGrantRepo>;
