import type { Clock, TimerHandle } from '../core/clock.ts';
import type { Address } from '../core/types.ts';
import type { Outbox } from './outbox.ts';

const REFRESH_MS = 4000;

/** Shows "typing…" now and every 4 s until the returned function is called. */
export function keepTyping(outbox: Outbox, clock: Clock, to: Address): () => void {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    void outbox.chatAction(to, 'typing');
    timer = clock.setTimeout(tick, REFRESH_MS);
  };
  tick();
  return () => {
    stopped = true;
    if (timer !== undefined) clock.clearTimeout(timer);
  };
}
