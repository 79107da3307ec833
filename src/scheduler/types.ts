import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { JobRepo, JobRow, RunOutcome } from '../store/job-repo.ts';

/** A job whose run is due now: its claimed row and the time the run was due. */
export type DueJob = JobRow & { dueAt: number };

/**
 * A conversation (chat, or forum topic) bound to a pack: the pack is active there, or was
 * (router.ts, `boundConversations`). A conversation is listed once for each of its packs.
 */
export interface BoundRoute {
  /** The address's channel; `tg` when not given. */
  platform?: string;
  chatId: string;
  threadId: string | null;
  pack: string;
}

/** A pack manifest's `cron` entry. */
export interface ManifestCron {
  id: string;
  schedule: string;
  skill: string;
  enabled: boolean;
  /** The entry's own chat model (`provider:model`), used for its runs instead of the chat's. */
  model?: string | undefined;
}

export interface SchedulerDeps {
  /** Shared with the `schedule` tool, so a job it creates or changes re-arms the timer. */
  jobs: JobRepo;
  clock: Clock;
  log: Logger;
  timezone: string;
  /**
   * The conversations and each pack bound to them: each gets that pack's manifest jobs, kept
   * when another pack becomes the active one (SPEC §8).
   */
  routes: () => BoundRoute[];
  manifestJobs: (pack: string) => readonly ManifestCron[];
  /**
   * Runs the job through the turn pipeline and acknowledges it (`jobs.finishRun`) in the
   * transaction that commits its reply. If it does not (it fails, throws, or refuses) the
   * scheduler acknowledges the run itself afterwards, so a run is never started twice
   * unless the process died during it. It calls `started` when the job's turn starts (not
   * while it waits for its conversation): only runs that started count as interrupted.
   */
  run: (job: DueJob, started: () => void) => Promise<RunOutcome | 'interrupted'>;
  /**
   * Pauses the recurring jobs of conversations nobody wrote in for JOB_IDLE_DAYS (idle.ts);
   * called before each look for due jobs.
   */
  sweepIdle?: (now: number) => void;
  /** A run ended with an outcome (the `job_run` event's subscribers). */
  onRan?: (ran: { jobId: string; pack: string; outcome: RunOutcome; ms: number }) => void;
}

export interface Scheduler {
  /**
   * Materializes manifest jobs, starts again the runs a crash left claimed, runs the
   * one-shots that fell due while stopped, moves cron jobs past their missed ticks
   * (`job_missed`), and arms the timer.
   */
  start(): void;
  /** Re-reads the bound conversations and packs' `cron` entries, then re-arms. */
  sync(): void;
  /**
   * `sync` on the next timer tick, once however many ask meanwhile; nothing before `start`
   * (which syncs) or after `stop`. For a conversation just bound: re-reading every
   * conversation is not its turn's work, and grows with the number of conversations.
   */
  syncSoon(): void;
  /** Clears the timer; resolves when the running job, if any, has finished. */
  stop(): Promise<void>;
  /** Resolves when no job is running. */
  idle(): Promise<void>;
  /** The next time a job of this chat or topic runs (ms), if any. */
  next(address: Address): number | undefined;
  /** The jobs of this chat or topic (all packs), the soonest first. */
  list(address: Address): JobRow[];
  /** `list` as a short text with local times (for `/jobs`). */
  describe(address: Address): string;
}
