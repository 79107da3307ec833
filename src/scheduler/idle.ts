import type { Logger } from '../core/ports.ts';
import { type Address, addressKey } from '../core/types.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { PersonActivity } from '../store/person-activity.ts';

const DAY = 24 * 60 * 60_000;

/**
 * Unattended work (SPEC §8): a conversation's recurring jobs pause when no person wrote
 * there for JOB_IDLE_DAYS days (`days`; 0 = never), and the next message from a person
 * there resumes them. `sweep` runs before the scheduler looks for due jobs, so a job of an
 * idle conversation is paused before it would run again; `job_paused_idle` is logged once
 * per job (a paused job is not paused again).
 */
export function createIdleJobs(deps: {
  activity: PersonActivity;
  jobs: Pick<JobRepo, 'resumeAt'>;
  log: Logger;
  days: number;
}) {
  const { activity, log, days } = deps;
  return {
    sweep(now: number): void {
      if (days <= 0) return;
      activity.backfill();
      for (const job of activity.pauseIdle(now - days * DAY)) {
        const address = addressKey({
          platform: job.platform,
          chatId: job.chatId,
          ...(job.threadId === null ? {} : { threadId: job.threadId }),
        });
        log.info(
          { event: 'job_paused_idle', jobId: job.id, pack: job.pack, address, idleDays: days },
          `job ${job.id} paused: nobody wrote in its chat for ${days} days`,
        );
      }
    },

    /**
     * A person wrote in `to`: recorded, and the jobs the idle pause stopped there run again.
     * The note for the reply when some did, else undefined.
     */
    personWrote(to: Address, now: number): string | undefined {
      activity.wrote(to, now);
      const resumed = deps.jobs.resumeAt(to, 'idle', now);
      if (resumed === 0) return undefined;
      log.info(
        { event: 'jobs_resumed_idle', address: addressKey(to), resumedJobs: resumed },
        'a person wrote: the jobs paused for idleness run again',
      );
      return resumedNote(resumed);
    },

    /** Writes the times `personWrote` kept in memory (at shutdown: see person-activity.ts). */
    flush: () => activity.flush(),
  };
}

export type IdleJobs = ReturnType<typeof createIdleJobs>;

/** "Resumed 2 jobs paused while nobody wrote here." */
export const resumedNote = (count: number) =>
  `Resumed ${count} ${count === 1 ? 'job' : 'jobs'} paused while nobody wrote here.`;
