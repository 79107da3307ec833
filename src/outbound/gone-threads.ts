import { ChannelError } from '../core/errors.ts';
import { type Address, addressKey } from '../core/types.ts';

/**
 * The threads (forum topics) a channel call was refused into because they no longer exist
 * (`thread_gone`). The channel sends no event for a deleted topic: a refused call is how
 * satchel learns of it, whichever call it was (a queued row, a live message, typing). A
 * thread once gone stays gone (Telegram never reuses a topic's id), so live calls into it
 * are skipped from then on; queued rows are still tried, and refused, once each.
 */
export function createGoneThreads(onGone?: (to: Address) => void) {
  const gone = new Set<string>();
  return {
    /** Whether a call into `to` was refused as `thread_gone` before. */
    has: (to: Address): boolean => to.threadId !== undefined && gone.has(addressKey(to)),

    /** Records `error` if it says `to`'s thread is gone, and tells the hook (jobs pause). */
    note(to: Address, error: unknown): void {
      if (!(error instanceof ChannelError) || error.kind !== 'thread_gone') return;
      if (to.threadId === undefined) return;
      gone.add(addressKey(to));
      onGone?.(to);
    },
  };
}

export type GoneThreads = ReturnType<typeof createGoneThreads>;
