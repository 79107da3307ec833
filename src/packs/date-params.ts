import type { Clock } from '../core/clock.ts';
import { localParts } from '../time/local-time.ts';

/**
 * The named parameters every query of a pack may use (SPEC §3: "dates are computed"), by
 * name without the colon, as SQL reads them (`:today`; SQLite's `@today` and `$today` bind
 * the same value). Dates are the user's local calendar days in SATCHEL_TIMEZONE, as
 * `YYYY-MM-DD`, the form the packs store their `*_date`/`*_on` columns in, so they compare
 * as text and feed SQLite's date functions (`date(:today, '-6 days')`). `now` is the
 * instant in UTC as `YYYY-MM-DDTHH:MM:SS.sssZ`, exactly what the packs' `created_at`
 * defaults (`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`) store, so it compares and sorts with
 * them as text; an offset form (`…+01:00`) would not.
 */
export interface DateParams {
  /** The instant, UTC: 2026-01-05T09:00:00.000Z. */
  now: string;
  /** The local date: 2026-01-05. */
  today: string;
  /** The local date before today. */
  yesterday: string;
  /** The Monday of this week (weeks run Monday to Sunday, ISO 8601). */
  week_start: string;
  /** The Sunday of this week: the week's last day, inclusive (`BETWEEN :week_start AND :week_end`). */
  week_end: string;
  /** The first day of this month. */
  month_start: string;
}

export type DateParamName = keyof DateParams;

export const DATE_PARAM_NAMES: readonly DateParamName[] = [
  'now',
  'today',
  'yesterday',
  'week_start',
  'week_end',
  'month_start',
];

/** Where a tool's date parameters come from: the injected clock, read in the user's zone. */
export interface DateSource {
  clock: Clock;
  timezone: string;
}

const DAY_MS = 86_400_000;

/**
 * The date parameters at `now` (a clock, read once, or an instant in ms) in `timezone`. A
 * plain object, ready to bind: better-sqlite3 binds `:name` from its keys and ignores the
 * keys a statement does not use.
 */
export function dateParams(now: Clock | number, timezone: string): DateParams {
  const at = typeof now === 'number' ? now : now.now();
  const local = localParts(at, timezone);
  // The local calendar day as a UTC midnight: day arithmetic on it knows no DST.
  const today = Date.UTC(local.year, local.month - 1, local.day);
  const sinceMonday = (new Date(today).getUTCDay() + 6) % 7;
  return {
    now: new Date(at).toISOString(),
    today: isoDate(today),
    yesterday: isoDate(today - DAY_MS),
    week_start: isoDate(today - sinceMonday * DAY_MS),
    week_end: isoDate(today + (6 - sinceMonday) * DAY_MS),
    month_start: isoDate(Date.UTC(local.year, local.month - 1, 1)),
  };
}

const isoDate = (utcMidnight: number) => new Date(utcMidnight).toISOString().slice(0, 10);

/** `:now, :today, …` for messages. */
export const DATE_PARAM_LIST = DATE_PARAM_NAMES.map((n) => `:${n}`).join(', ');

/** What the model reads when a query names a parameter that is not a date parameter. */
export function unknownParamMessage(name: string): string {
  return `the query uses :${name}, which has no value: the named parameters are ${DATE_PARAM_LIST} (computed in the user's time zone); pass other values with ? placeholders and "params"`;
}

/** better-sqlite3's words for a named parameter the statement uses and the object lacks. */
const MISSING = /^Missing named parameter "([^"]*)"$/;

/**
 * A query error as the model should read it: better-sqlite3's `Missing named parameter
 * "x"` says which parameters there are; any other message is returned unchanged.
 */
export function explainQueryError(message: string): string {
  const missing = MISSING.exec(message);
  return missing ? unknownParamMessage(missing[1] ?? '') : message;
}
