import { ChannelError } from '../core/errors.ts';
import { type Address, addressKey } from '../core/types.ts';

/**
 * The threads (forum topics) a channel call was refused into because they no longer exist
 * (`thread_gone`). The channel sends no event for a deleted topic: a refused call is how
 * satchel learns of it, whichever call it was (a queued row, a live message, typing). Live
 * calls into a gone thread are skipped; queued rows are still tried, once each. Telegram
 * has been known to refuse a call so into a topic that exists: a row delivered there
 * proves the thread is back, and `onBack` undoes the pause.
 */
export function createGoneThreads(hooks: {
  onGone?: ((to: Address) => void) | undefined;
  onBack?: ((to: Address) => void) | undefined;
}) {
  const gone = new Set<string>();
  return {
    /** Whether a call into `to` was refused as `thread_gone` before. */
    has: (to: Address): boolean => to.threadId !== undefined && gone.has(addressKey(to)),

    /** Records `error` if it says `to`'s thread is gone, and tells the hook (jobs pause). */
    note(to: Address, error: unknown): void {
      if (!(error instanceof ChannelError) || error.kind !== 'thread_gone') return;
      if (to.threadId === undefined) return;
      gone.add(addressKey(to));
      hooks.onGone?.(to);
    },

    /** A row was delivered into `to`: a thread taken for gone is back. */
    delivered(to: Address): void {
      if (to.threadId === undefined || !gone.delete(addressKey(to))) return;
      hooks.onBack?.(to);
    },
  };
}

export type GoneThreads = ReturnType<typeof createGoneThreads>;
