import type { KeyedInbox } from '../core/inbox.ts';
import type { UploadStore } from './uploads.ts';

/**
 * The most the files sent and not yet answered may hold together (SPEC §16): past it an
 * upload is refused, never because a turn runs.
 */
export const MAX_PENDING_BYTES = 200 * 1024 * 1024;

/** What the owner is told when an upload would pass MAX_PENDING_BYTES (429: send it later). */
export const TOO_MUCH_PENDING = `The files you sent are still waiting for their answers (${MAX_PENDING_BYTES / 1024 / 1024} MB at most). Send this one again once they are answered.`;

/**
 * The uploads waiting for their turn, by the key of the input that names them (its
 * `edge_inbox` row): held from the moment it is stored (or replayed after a restart) until
 * its reply's acknowledgement settles it; then the store removes what it no longer needs.
 * Kept in memory: after a restart, what waits is exactly what is replayed.
 */
export function createPendingUploads(
  store: Pick<UploadStore, 'size' | 'settle'>,
  limit = MAX_PENDING_BYTES,
) {
  const held = new Map<string, { ids: readonly string[]; bytes: number }>();
  let total = 0;

  return {
    /** Whether `bytes` more may wait. */
    room: (bytes: number) => total + bytes <= limit,

    /** The bytes waiting now. */
    bytes: () => total,

    /** Input `key`, stored or replayed, names uploads `ids`: they wait until it is answered. */
    hold(key: string, ids: readonly string[]): void {
      if (ids.length === 0 || held.has(key)) return;
      const bytes = ids.reduce((sum, id) => sum + (store.size(id) ?? 0), 0);
      held.set(key, { ids, bytes });
      total += bytes;
    },

    /** The inputs `keys` were answered: their uploads wait no more (SPEC §16: stored once). */
    settle(keys: readonly string[]): void {
      for (const key of keys) {
        const found = held.get(key);
        if (!found) continue;
        held.delete(key);
        total -= found.bytes;
        store.settle(found.ids);
      }
    },
  };
}

export type PendingUploads = ReturnType<typeof createPendingUploads>;

/**
 * The web edge's acknowledgement (in the reply's transaction): the inputs are marked done,
 * and their uploads settled once that transaction has committed — on the next task, for the
 * keys the inbox then holds as done. A transaction that fails after marking leaves the input
 * to be replayed, with its files still there; so does a shutdown that closed the database
 * before that task.
 */
export function acknowledgeUploads(
  inbox: Pick<KeyedInbox, 'markDone' | 'done'>,
  pending: Pick<PendingUploads, 'settle'>,
): (keys: readonly string[], now: number) => void {
  return (keys, now) => {
    inbox.markDone(keys, now);
    setImmediate(() => {
      let answered: readonly string[];
      try {
        answered = inbox.done(keys);
      } catch {
        // The database closed meanwhile (shutdown): the files stay, as after a crash.
        return;
      }
      pending.settle(answered);
    });
  };
}
