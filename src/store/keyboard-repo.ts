import { eq, lt } from 'drizzle-orm';
import type { Db } from './client.ts';
import { actionKeyboards } from './schema.ts';

/** One stored keyboard of pack actions: what its buttons run, for whom, and where. */
export interface KeyboardRow {
  id: string;
  pack: string;
  /** The home its actions use (`homeKey`). */
  home: string;
  platform: string;
  chatId: string;
  /** '' for a chat without topics, or the General topic. */
  threadId: string;
  /** JSON: `[{label, action, params}]`. */
  buttons: string;
  createdAt: number;
}

/** The `action_keyboards` table (migration 0016): written with the message that shows it. */
export function createKeyboardRepo(db: Db) {
  return {
    insert(row: KeyboardRow): void {
      db.insert(actionKeyboards).values(row).run();
    },
    get(id: string): KeyboardRow | undefined {
      return db.select().from(actionKeyboards).where(eq(actionKeyboards.id, id)).get();
    },
    remove(id: string): void {
      db.delete(actionKeyboards).where(eq(actionKeyboards.id, id)).run();
    },
    /** Removes the keyboards made before `at`; returns how many. */
    pruneBefore(at: number): number {
      return db.delete(actionKeyboards).where(lt(actionKeyboards.createdAt, at)).run().changes;
    },
  };
}

export type KeyboardRepo = ReturnType<typeof createKeyboardRepo>;
