import type { Clock, TimerHandle } from '../core/clock.ts';
import type { Address } from '../core/types.ts';
import type { Outbox } from './outboxes.ts';

const REFRESH_MS = 4000;

/**
 * Shows "typing…" from the next timer tick, then every 4 s, until the returned function is
 * called; a typing action still waiting for a slot then is dropped. Not at once: the turn
 * that starts typing goes on to its model call in the same task, and that request should
 * leave first (typing is seen a millisecond later).
 */
export function keepTyping(outbox: Outbox, clock: Clock, to: Address): () => void {
  let stopped = false;
  let timer: TimerHandle | undefined;
  const tick = () => {
    if (stopped) return;
    void outbox.chatAction(to, 'typing');
    timer = clock.setTimeout(tick, REFRESH_MS);
  };
  timer = clock.setTimeout(tick, 0);
  return () => {
    stopped = true;
    if (timer !== undefined) clock.clearTimeout(timer);
    outbox.dropWaiting(to, 'sendChatAction');
  };
}
