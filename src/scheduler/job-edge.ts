import type { Edge } from '../core/edge.ts';
import type { EventBus } from '../core/events.ts';
import type { Address, ChatType, InboundEvent, JobOutcome, JobRun } from '../core/types.ts';
import type { JobRepo } from '../store/job-repo.ts';
import { createScheduler, jobAddress } from './scheduler.ts';
import type { DueJob, SchedulerDeps } from './types.ts';

/** The platform of job runs' origins. */
export const JOB_PLATFORM = 'job';

export interface JobEdgeDeps {
  jobs: Pick<JobRepo, 'finishRun'>;
  events: Pick<EventBus, 'on'>;
  /** The pipeline's entry. */
  accept(event: InboundEvent): void;
  /** The scheduler's own needs; it runs what it claims through this edge. */
  schedule: Omit<SchedulerDeps, 'run'>;
  /** What kind of chat a job's address is: its own edge's answer (ids are the edge's). */
  chatType(address: Address): ChatType;
}

/**
 * The scheduler as an edge of the core: a due job enters the pipeline through `accept`
 * like any other event (origin `job`, key `<jobId>:<dueAt>`), and the pipeline acknowledges
 * it — `jobs.finishRun` — in the transaction that commits its reply. A run resolves with the
 * outcome once the pipeline is done with it (`job_finished`). Its ingress starts the
 * scheduler; the scheduler stops with the turns on shutdown (its runs are turns), not with
 * the other edges' intake.
 */
export function createJobEdge(deps: JobEdgeDeps) {
  const waiting = new Map<string, { done(outcome: JobOutcome): void; started?(): void }>();
  deps.events.on('job_started', ({ jobId, dueAt }) =>
    waiting.get(runKey(jobId, dueAt))?.started?.(),
  );
  deps.events.on('job_finished', ({ jobId, dueAt, outcome }) => {
    const key = runKey(jobId, dueAt);
    waiting.get(key)?.done(outcome);
    waiting.delete(key);
  });

  /**
   * Hands a claimed run to the pipeline; resolves with how it ended. `started` is called
   * when its turn starts (an attempt that counts if a crash interrupts it).
   */
  function run(job: DueJob, started?: () => void): Promise<JobOutcome> {
    const key = runKey(job.id, job.dueAt);
    const done = new Promise<JobOutcome>((resolve) =>
      waiting.set(key, { done: resolve, ...(started ? { started } : {}) }),
    );
    deps.accept(jobEvent(job, key, deps.chatType));
    return done;
  }
  const scheduler = createScheduler({ ...deps.schedule, run });

  const edge: Edge = {
    platform: JOB_PLATFORM,
    acknowledge(keys, now) {
      for (const key of keys) {
        const at = key.lastIndexOf(':');
        deps.jobs.finishRun(key.slice(0, at), Number(key.slice(at + 1)), now);
      }
    },
    ingress: () => ({ start: async () => scheduler.start() }),
  };

  return { edge, scheduler };
}

const runKey = (jobId: string, dueAt: number) => `${jobId}:${dueAt}`;

function jobEvent(
  job: DueJob,
  key: string,
  chatType: (address: Address) => ChatType,
): InboundEvent {
  const address = jobAddress(job);
  return {
    origin: { platform: JOB_PLATFORM, keys: [key] },
    address,
    chatType: chatType(address),
    // A run is nobody's message: no sender.
    senderId: '',
    receivedAt: job.dueAt,
    kind: 'job',
    job: jobRun(job),
  };
}

/**
 * A due job as the pipeline runs it: what the model is asked, and the key of its own
 * session (one per job, so a daily job remembers its earlier runs).
 */
export function jobRun(job: DueJob): JobRun {
  const ask = job.prompt?.trim()
    ? job.prompt
    : `It is time for your scheduled task: follow the "${job.skill}" skill now.`;
  return {
    id: job.id,
    pack: job.pack,
    dueAt: job.dueAt,
    skill: job.skill ?? undefined,
    prompt: `[Scheduled run of job ${job.id}. If there is nothing worth saying this time, answer exactly [SILENT] and nothing will be sent.]\n${ask}`,
    sessionKey: `job:${job.manifestKey ?? job.id}`,
    ...(job.model ? { model: job.model } : {}),
    ...(job.taint ? { taint: job.taint.split('\n') } : {}),
    ...(job.person ? { person: job.person } : {}),
  };
}
