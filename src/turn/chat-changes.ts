import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent } from '../core/types.ts';
import type { ChatMoves } from '../store/chat-moves.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { Replies } from './replies.ts';

type ChatChange = Extract<InboundEvent, { kind: 'chat_change' }>;

/**
 * A group or topic changed under its conversations (SPEC §12): a closed topic's jobs pause
 * and a reopened one's resume (only those the close paused: a job the user paused stays
 * paused), and a group that moved to a new chat id takes its routes, sessions, jobs and
 * unsent messages along. Nothing is answered.
 */
export function createChatChanges(deps: {
  log: Logger;
  clock: Clock;
  moves: ChatMoves;
  jobs: Pick<JobRepo, 'pauseAt' | 'resumeAt'>;
  replies: Pick<Replies, 'settle'>;
}) {
  const { log, moves, jobs, replies } = deps;
  return (event: ChatChange): void => {
    const address = addressKey(event.address);
    if (event.change === 'topic_closed') {
      const paused = jobs.pauseAt(event.address, 'topic_closed');
      log.info({ event: 'topic_closed', address, pausedJobs: paused }, 'topic closed');
    } else if (event.change === 'topic_reopened') {
      // A reopened topic exists: jobs paused as gone (a refusal it was known for) come back too.
      const now = deps.clock.now();
      const resumed =
        jobs.resumeAt(event.address, 'topic_closed', now) +
        jobs.resumeAt(event.address, 'topic_gone', now);
      log.info({ event: 'topic_reopened', address, resumedJobs: resumed }, 'topic reopened');
    } else if (event.change === 'moved' && event.movedTo !== undefined) {
      moves.move(event.address.platform, event.address.chatId, event.movedTo);
      log.info({ event: 'chat_moved', from: address, to: event.movedTo }, 'group moved');
    }
    replies.settle([event.origin]);
  };
}

/**
 * A send into a forum topic was refused because the topic no longer exists (SPEC §12: the
 * Bot API sends no update for a deleted topic): its jobs pause, so they stop running and
 * failing; the refused row itself is not tried again (a final refusal). `back`: a message
 * was delivered there after all (the refusal was Telegram's mistake): the jobs resume.
 */
export function createTopicGone(deps: {
  log: Logger;
  clock: Clock;
  jobs: Pick<JobRepo, 'pauseAt' | 'resumeAt'>;
}) {
  return {
    gone(to: Address): void {
      const paused = deps.jobs.pauseAt(to, 'topic_gone');
      if (paused === 0) return;
      deps.log.warn(
        { event: 'topic_gone_jobs_paused', address: addressKey(to), pausedJobs: paused },
        'the topic no longer exists (deleted?): its jobs are paused',
      );
    },
    back(to: Address): void {
      const resumed = deps.jobs.resumeAt(to, 'topic_gone', deps.clock.now());
      if (resumed === 0) return;
      deps.log.info(
        { event: 'topic_back_jobs_resumed', address: addressKey(to), resumedJobs: resumed },
        'a message reached the topic after all: its jobs run again',
      );
    },
  };
}
