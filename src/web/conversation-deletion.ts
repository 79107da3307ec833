import type { Clock, TimerHandle } from '../core/clock.ts';
import type { EdgeConversations } from '../core/edge-conversations.ts';
import type { Logger } from '../core/ports.ts';
import { addressOf } from './conversations.ts';
import type { UploadStore } from './uploads.ts';

/** How long a deleted conversation can be brought back (the page offers Undo meanwhile). */
export const UNDO_MS = 8_000;

/** What emptying a deleted conversation removed, as the page says it. */
export interface Removed {
  messages: number;
  uploads: number;
  jobs: number;
}

export interface DeletionDeps {
  store: EdgeConversations;
  uploads: Pick<UploadStore, 'forget'>;
  clock: Clock;
  log: Logger;
  undoMs?: number;
}

/**
 * Deleting a web conversation (SPEC §16): it leaves the list at once and can be undone for
 * `undoMs`; then its messages (with their search index), sessions, jobs and uploads are
 * removed. Its row stays, title and all, so the ledger's rows are still named by it. An undo
 * a restart cut short is finished at the next start (`resume`).
 */
export function createDeletions(deps: DeletionDeps) {
  const { store, clock, log } = deps;
  const undoMs = deps.undoMs ?? UNDO_MS;
  const timers = new Map<string, TimerHandle>();
  /** What each conversation emptied in this run removed, for the page that asks. */
  const done = new Map<string, Removed>();

  function purge(id: string): Removed {
    timers.delete(id);
    const { messages, jobs } = store.purge(id, addressOf(id));
    const removed = { messages, jobs, uploads: deps.uploads.forget(id) };
    done.set(id, removed);
    if (removed.messages + removed.jobs + removed.uploads > 0)
      log.info({ event: 'web_conversation_deleted', conversation: id, ...removed }, 'deleted');
    return removed;
  }

  return {
    undoMs,
    /** Deletes `id`, undoable for `undoMs`; false when there is no such one shown. */
    remove(id: string): boolean {
      const found = store.get(id);
      if (!found || found.deletedAt !== null) return false;
      store.hide(id, clock.now());
      timers.set(
        id,
        clock.setTimeout(() => purge(id), undoMs),
      );
      return true;
    },

    /** Brings `id` back while its undo lasts; false once it lapsed (or it was never deleted). */
    undo(id: string): boolean {
      const timer = timers.get(id);
      if (timer === undefined) return false;
      clock.clearTimeout(timer);
      timers.delete(id);
      return store.hide(id, null);
    },

    /**
     * What deleting `id` removed: undefined while its undo lasts or when it was not deleted
     * in this run.
     */
    removed: (id: string): Removed | undefined => done.get(id),

    /** Whether `id` was deleted and can still be brought back. */
    undoable: (id: string): boolean => timers.has(id),

    /** Empties those whose undo a stop cut short (at start); the emptied ones cost a query. */
    resume(): void {
      for (const c of store.unpurged()) if (!timers.has(c.id) && !done.has(c.id)) purge(c.id);
    },

    /** Stops the timers (at stop): what they would have emptied is emptied at the next start. */
    stop(): void {
      for (const timer of timers.values()) clock.clearTimeout(timer);
      timers.clear();
    },
  };
}

export type Deletions = ReturnType<typeof createDeletions>;
