import type { Clock, TimerHandle } from './clock.ts';

export interface ParentWatchOptions {
  clock: Clock;
  /** The current parent's pid (process.ppid). */
  ppid: () => number;
  /** Called once, when the parent is no longer the one satchel started under. */
  onGone: (from: number, to: number) => void;
  intervalMs?: number;
}

/**
 * Watches for the parent process to go away. Under `npm start` satchel runs below npm's
 * shell; `kill <npm's pid>` makes npm pass SIGTERM to that shell, which dies of it without
 * passing it on, and satchel is left behind (re-parented, usually to pid 1), still polling
 * and holding its port. A changed parent pid is how satchel learns it was orphaned. Started
 * under pid 1 (systemd, a container), the parent never changes and this never fires.
 */
export function watchParent(options: ParentWatchOptions): () => void {
  const { clock, ppid, onGone } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const first = ppid();
  let timer: TimerHandle | undefined;
  const check = () => {
    const now = ppid();
    if (now !== first) {
      timer = undefined;
      onGone(first, now);
      return;
    }
    timer = clock.setTimeout(check, intervalMs);
  };
  timer = clock.setTimeout(check, intervalMs);
  return () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
}
