import type { Address } from '../core/types.ts';
import type { JobRepo, JobRow } from '../store/job-repo.ts';
import { formatLocal, isoInZone } from '../time/local-time.ts';
import { usd } from '../usage/money.ts';
import type { UsageSums } from '../usage/sums.ts';

export { formatLocal } from '../time/local-time.ts';

/** What a job's runs cost today and in all (`/jobs`). */
export type JobCost = { today: UsageSums; all: UsageSums };

/** What `/jobs` adds to each line: the jobs' costs, and JOB_IDLE_DAYS for the idle pause. */
export interface ListingExtras {
  costs?: ReadonlyMap<string, JobCost> | undefined;
  idleDays?: number | undefined;
  /** The conversation's active pack: a job of another pack is listed with its pack's name. */
  active?: string | undefined;
}

/**
 * Jobs as a short list for a person (the `/jobs` command, the `schedule` tool): one line
 * each with its id, when it runs, what it runs and its next time in `timezone`; with
 * `extras.costs`, what it cost.
 */
export function describeJobs(
  rows: readonly JobRow[],
  timezone: string,
  now: number,
  extras: ListingExtras = {},
): string {
  if (rows.length === 0) return 'No scheduled jobs.';
  const kinds = new Set(rows.map((row) => row.pack));
  const packs = kinds.size > 1 || (extras.active !== undefined && !kinds.has(extras.active));
  const lines = rows.map((row) => `- ${describeJob(row, timezone, now, packs, extras)}`);
  return [...lines, `Times are in ${timezone}.`].join('\n');
}

function describeJob(
  row: JobRow,
  timezone: string,
  now: number,
  withPack: boolean,
  extras: ListingExtras,
): string {
  const what = row.skill ? `skill ${row.skill}` : `"${clip(row.prompt ?? '', 60)}"`;
  const how =
    row.kind === 'once'
      ? 'once'
      : `"${row.schedule}"${row.source === 'manifest' ? ' (pack default)' : ''}`;
  const state = !row.enabled
    ? row.source === 'manifest' && row.pausedBy === null
      ? `off: /jobs on ${row.id} turns it on here`
      : pausedState(row.pausedBy, extras.idleDays)
    : row.runningDueAt !== null
      ? 'running now'
      : row.nextRunAt === null
        ? 'no next time'
        : `next ${formatLocal(row.nextRunAt, timezone, now)}`;
  const last =
    row.lastOutcome === 'failed' || row.lastOutcome === 'refused'
      ? `; last run ${row.lastOutcome}`
      : '';
  const model = row.model ? `, model ${row.model}` : '';
  const cost = extras.costs?.get(row.id);
  const spent = cost ? `; cost ${spend(cost.today)} today, ${spend(cost.all)} in all` : '';
  return `${row.id}: ${how}, ${what}${model}${withPack ? ` [${row.pack}]` : ''} — ${state}${last}${spent}`;
}

/** A paused job's state, saying why when satchel paused it itself, and what resumes it. */
function pausedState(by: JobRow['pausedBy'], idleDays: number | undefined): string {
  if (by === 'idle')
    return `paused: nobody wrote here for ${idleDays ? `${idleDays} days` : 'a while'}; any message here resumes it`;
  return PAUSED[by ?? 'user'];
}

const PAUSED: Record<'user' | 'topic_closed' | 'topic_gone' | 'removed', string> = {
  user: 'paused',
  removed: 'paused: the owner removed the person who made it',
  topic_closed: 'paused while its topic is closed',
  topic_gone: 'paused: its topic no longer exists',
};

/** A cost as the dashboard shows it: unknown when no call had a price, never $0. */
function spend(sums: UsageSums): string {
  if (sums.calls === 0) return '$0';
  if (sums.cost_usd === null) return 'unknown';
  const unpriced = sums.unknown_price_calls;
  return unpriced > 0 ? `${usd(sums.cost_usd)} + ${unpriced} unpriced` : usd(sums.cost_usd);
}

/** When a job runs, for a person and for the model: "tomorrow 18:00 (2026-11-23T18:00:00+01:00)". */
export function describeTime(at: number | null, timezone: string, now: number): string {
  if (at === null) return 'never';
  return `${formatLocal(at, timezone, now)} ${timezone} (${isoInZone(at, timezone)})`;
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * A chat's jobs as the commands show them (`/jobs`, `/status`), read from the job table;
 * with `costs`, each with what it cost (`/jobs`).
 */
export function createJobListing(deps: {
  jobs: Pick<JobRepo, 'forAddress' | 'setEnabled'>;
  clock: { now(): number };
  timezone: string;
  costs?: (ids: readonly string[], now: number) => ReadonlyMap<string, JobCost>;
  idleDays?: number;
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
    /** With `active` (the conversation's pack), a job of another pack names its pack. */
    describe(address: Address, active?: string): string {
      const rows = deps.jobs.forAddress(address);
      const now = deps.clock.now();
      const costs = deps.costs?.(
        rows.map((row) => row.id),
        now,
      );
      return describeJobs(rows, deps.timezone, now, { costs, idleDays: deps.idleDays, active });
    },
    /**
     * `/jobs on ID` and `/jobs off ID`: turns one of this chat's jobs on (a pack's job that
     * starts off, such as a morning briefing, becomes this chat's) or off. What to say back.
     */
    turn(address: Address, id: string, on: boolean): string {
      const job = deps.jobs.forAddress(address).find((row) => row.id === id);
      if (!job) return `No job ${id} here. /jobs lists this chat's jobs.`;
      if (job.enabled === on) return `Job ${id} is ${on ? 'on' : 'off'} already.`;
      const now = deps.clock.now();
      deps.jobs.setEnabled(id, job.pack, address, on, now);
      if (!on) return `Job ${id} is off. /jobs on ${id} turns it on again.`;
      const after = deps.jobs.forAddress(address).find((row) => row.id === id);
      const next = after?.nextRunAt ?? null;
      return `Job ${id} is on here (${job.skill ? `skill ${job.skill}` : 'a reminder'}): next run ${next === null ? 'none' : formatLocal(next, deps.timezone, now)} (${deps.timezone}).`;
    },
  };
}
