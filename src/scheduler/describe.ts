import type { Address } from '../core/types.ts';
import type { JobRepo, JobRow } from '../store/job-repo.ts';
import { formatLocal, isoInZone } from '../time/local-time.ts';

export { formatLocal } from '../time/local-time.ts';

/**
 * Jobs as a short list for a person (the `/jobs` command, the `schedule` tool): one line
 * each with its id, when it runs, what it runs and its next time in `timezone`.
 */
export function describeJobs(rows: readonly JobRow[], timezone: string, now: number): string {
  if (rows.length === 0) return 'No scheduled jobs.';
  const packs = new Set(rows.map((row) => row.pack)).size > 1;
  const lines = rows.map((row) => `- ${describeJob(row, timezone, now, packs)}`);
  return [...lines, `Times are in ${timezone}.`].join('\n');
}

function describeJob(row: JobRow, timezone: string, now: number, withPack: boolean): string {
  const what = row.skill ? `skill ${row.skill}` : `"${clip(row.prompt ?? '', 60)}"`;
  const how =
    row.kind === 'once'
      ? 'once'
      : `"${row.schedule}"${row.source === 'manifest' ? ' (pack default)' : ''}`;
  const state = !row.enabled
    ? PAUSED[row.pausedBy ?? 'user']
    : row.runningDueAt !== null
      ? 'running now'
      : row.nextRunAt === null
        ? 'no next time'
        : `next ${formatLocal(row.nextRunAt, timezone, now)}`;
  const last =
    row.lastOutcome === 'failed' || row.lastOutcome === 'refused'
      ? `; last run ${row.lastOutcome}`
      : '';
  return `${row.id}: ${how}, ${what}${withPack ? ` [${row.pack}]` : ''} — ${state}${last}`;
}

/** A paused job's state, saying why when satchel paused it itself (its topic). */
const PAUSED: Record<NonNullable<JobRow['pausedBy']> | 'user', string> = {
  user: 'paused',
  topic_closed: 'paused while its topic is closed',
  topic_gone: 'paused: its topic no longer exists',
  idle: 'paused: nobody wrote here for a while',
};

/** When a job runs, for a person and for the model: "tomorrow 18:00 (2026-11-23T18:00:00+01:00)". */
export function describeTime(at: number | null, timezone: string, now: number): string {
  if (at === null) return 'never';
  return `${formatLocal(at, timezone, now)} ${timezone} (${isoInZone(at, timezone)})`;
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** A chat's jobs as the commands show them (`/jobs`, `/status`), read from the job table. */
export function createJobListing(deps: {
  jobs: Pick<JobRepo, 'forAddress'>;
  clock: { now(): number };
  timezone: string;
}) {
  return {
    /** The next time a job of this chat or topic runs (ms), if any. */
    next(address: Address): number | undefined {
      const times = deps.jobs
        .forAddress(address)
        .filter((job) => job.enabled && job.runningDueAt === null && job.nextRunAt !== null)
        .map((job) => job.nextRunAt!);
      return times.length > 0 ? Math.min(...times) : undefined;
    },
    describe: (address: Address): string =>
      describeJobs(deps.jobs.forAddress(address), deps.timezone, deps.clock.now()),
  };
}
