import type { Address } from '../core/types.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import type { Router } from '../routing/router.ts';
import type { QueueMode } from './steering.ts';

export interface QueueCommandDeps {
  router: Pick<Router, 'queueMode' | 'setQueueMode'>;
  /** QUEUE_MODE: the mode where /queue was not used. */
  fallback: QueueMode;
}

/** What each mode does, as /queue tells it. */
export const QUEUE_MODES: Record<QueueMode, string> = {
  steer:
    'A message you send while I am working on your last one joins that work before my next step, and I give one answer to both.',
  followup:
    'A message you send while I am working waits, and gets its own answer after the current one.',
};

/** `/queue` says the mode of this chat or topic; `/queue steer|followup` sets it (SPEC §18). */
export function queueCommand(deps: QueueCommandDeps, address: Address, args: string): OutboundText {
  const word = args.trim().toLowerCase();
  if (word === 'steer' || word === 'followup') {
    deps.router.setQueueMode(address, word);
    return plain(`Queue mode: ${word}. ${QUEUE_MODES[word]}`);
  }
  if (word !== '') return plain('Send /queue to see the queue mode, or /queue steer|followup.');
  const chosen = deps.router.queueMode(address);
  const mode = chosen ?? deps.fallback;
  const whence = chosen === undefined ? ' (the default, QUEUE_MODE)' : '';
  return plain(
    `Queue mode: ${mode}${whence}. ${QUEUE_MODES[mode]} Send /queue steer or /queue followup to change it.`,
  );
}
