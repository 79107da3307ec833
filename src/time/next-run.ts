import { Cron } from 'croner';
import { fromWallTime, isoInZone, localParts } from './local-time.ts';

/** A job's `schedule`, read: a cron expression, or one date-time. */
export type ParsedSchedule =
  | { kind: 'cron'; schedule: string; nextRunAt: number | null }
  | { kind: 'once'; schedule: string; nextRunAt: number };

/** A schedule that cannot be used; the message says how to write one that can. */
export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * The next tick of a 5-field cron `pattern` in `timezone`, strictly after `after` (ms), or
 * null when it has none. Croner only computes times here: its own timers do not follow the
 * injected clock.
 */
export function nextCronRun(pattern: string, timezone: string, after: number): number | null {
  const next = new Cron(pattern, { timezone, paused: true, mode: '5-part' }).nextRun(
    new Date(after),
  );
  return next ? next.getTime() : null;
}

/** When a job runs next after `after`: its next cron tick; a one-shot has no next time. */
export function nextRunAfter(
  job: { kind: 'cron' | 'once'; schedule: string },
  timezone: string,
  after: number,
): number | null {
  return job.kind === 'cron' ? nextCronRun(job.schedule, timezone, after) : null;
}

/**
 * Reads `text` as a 5-field cron expression (in `timezone`) or an ISO 8601 date-time with an
 * offset that is after `now`. Throws a ScheduleError that says how to write it otherwise.
 */
export function parseSchedule(text: string, timezone: string, now: number): ParsedSchedule {
  const schedule = text.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(schedule)) return parseOnce(schedule, timezone, now);
  const fields = schedule.split(/\s+/);
  // croner reads a 6th (and 7th) field as seconds (and years): repeating more often than
  // once a minute is refused, whatever the seconds say (SPEC §8).
  if (fields.length === 6 || fields.length === 7)
    throw new ScheduleError(
      `"${schedule}" has a seconds field, but a repeating job runs at most once a minute. ` +
        'Write 5 fields, "minute hour day-of-month month day-of-week": "* * * * *" is every ' +
        'minute, "*/5 * * * *" every five minutes.',
    );
  let nextRunAt: number | null;
  try {
    if (fields.length !== 5) throw new Error(`it has ${fields.length} field(s), not 5`);
    nextRunAt = nextCronRun(fields.join(' '), timezone, now);
  } catch (error) {
    throw new ScheduleError(
      `"${schedule}" is not a valid 5-field cron expression (${(error as Error).message}). ` +
        'Write "minute hour day-of-month month day-of-week", e.g. "0 8 * * *" for every day at ' +
        `08:00 (${timezone}), or an ISO 8601 date-time with an offset for one run, e.g. ` +
        `"${example(now, timezone)}".`,
    );
  }
  if (nextRunAt === null) throw new ScheduleError(`"${schedule}" never falls due`);
  return { kind: 'cron', schedule: fields.join(' '), nextRunAt };
}

function parseOnce(schedule: string, timezone: string, now: number): ParsedSchedule {
  const m = ISO.exec(schedule);
  if (!m)
    throw new ScheduleError(
      `"${schedule}" is not an ISO 8601 date-time. Write it as YYYY-MM-DDTHH:MM:SS with its UTC ` +
        `offset, e.g. "${example(now, timezone)}".`,
    );
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(wall);
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23)
    throw new ScheduleError(`"${schedule}" is not a real date and time`);
  if (!m[7]) {
    // Say which offset the user's wall time has here, so the model can just resend it.
    const at = fromWallTime(wall, timezone);
    throw new ScheduleError(
      `"${schedule}" has no UTC offset. Write the date-time with its offset, e.g. ` +
        `"${isoInZone(at, timezone)}" for that time in ${timezone}.`,
    );
  }
  const at = Date.parse(schedule.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(at)) throw new ScheduleError(`"${schedule}" is not a real date and time`);
  if (at <= now)
    throw new ScheduleError(
      `${schedule} is in the past (it is now ${isoInZone(now, timezone)}); give a future time.`,
    );
  return { kind: 'once', schedule, nextRunAt: at };
}

/** An example one-shot time: tomorrow at 18:00 in `timezone`. */
function example(now: number, timezone: string): string {
  const p = localParts(now + 86_400_000, timezone);
  return isoInZone(
    fromWallTime(Date.UTC(p.year, p.month - 1, p.day, 18, 0, 0), timezone),
    timezone,
  );
}
