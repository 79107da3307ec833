import type { Clock, TimerHandle } from '../core/clock.ts';

/**
 * One timer on `clock` that is set again rather than added to: `set` replaces the pending
 * one, so at most one is ever pending. Its one state is the pending timer, if any.
 */
export function createAlarm(clock: Clock) {
  let pending: TimerHandle | undefined;
  const clear = () => {
    if (pending !== undefined) clock.clearTimeout(pending);
    pending = undefined;
  };
  return {
    set(ms: number, ring: () => void): void {
      clear();
      pending = clock.setTimeout(() => {
        pending = undefined;
        ring();
      }, ms);
    },
    clear,
    isSet: () => pending !== undefined,
  };
}
