import type { ScheduledRun } from '../turn/run-events.ts';
import { jobAddress } from './scheduler.ts';
import type { DueJob } from './types.ts';

/**
 * A due job as the pipeline runs it: where it delivers, what the model is asked, the key of
 * its own session (one per job, so a daily job remembers its earlier runs), and `started`,
 * called when its turn starts (an attempt that counts if a crash interrupts it).
 */
export function scheduledRun(job: DueJob, started?: () => void): ScheduledRun {
  const ask = job.prompt?.trim()
    ? job.prompt
    : `It is time for your scheduled task: follow the "${job.skill}" skill now.`;
  return {
    id: job.id,
    pack: job.pack,
    dueAt: job.dueAt,
    address: jobAddress(job),
    skill: job.skill ?? undefined,
    prompt: `[Scheduled run of job ${job.id}. If there is nothing worth saying this time, answer exactly [SILENT] and nothing will be sent.]\n${ask}`,
    sessionKey: `job:${job.manifestKey ?? job.id}`,
    ...(started ? { started } : {}),
  };
}
