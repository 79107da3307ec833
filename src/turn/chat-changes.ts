import type { Logger } from '../core/ports.ts';
import { addressKey, type InboundEvent } from '../core/types.ts';
import type { ChatMoves } from '../store/chat-moves.ts';
import type { Replies } from './replies.ts';

type ChatChange = Extract<InboundEvent, { kind: 'chat_change' }>;

/**
 * A group or topic changed under its conversations (SPEC §12): a closed topic's jobs pause
 * (a reopened one's stay paused until resumed), and a group that moved to a new chat id takes
 * its routes, sessions, jobs and unsent messages along. Nothing is answered.
 */
export function createChatChanges(deps: { log: Logger; moves: ChatMoves; replies: Replies }) {
  const { log, moves, replies } = deps;
  return (event: ChatChange): void => {
    const address = addressKey(event.address);
    if (event.change === 'topic_closed') {
      const paused = moves.pauseJobs(event.address);
      log.info({ event: 'topic_closed', address, pausedJobs: paused }, 'topic closed');
    } else if (event.change === 'moved' && event.movedTo !== undefined) {
      moves.move(event.address.platform, event.address.chatId, event.movedTo);
      log.info({ event: 'chat_moved', from: address, to: event.movedTo }, 'group moved');
    }
    replies.settle([event.origin]);
  };
}
