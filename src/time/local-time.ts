/** Wall-clock fields of an instant in a time zone. */
export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

function cached(
  cache: Map<string, Intl.DateTimeFormat>,
  timezone: string,
  options: Intl.DateTimeFormatOptions,
) {
  let format = cache.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, ...options });
    cache.set(timezone, format);
  }
  return format;
}

export function localParts(at: number, timezone: string): LocalParts {
  const format = cached(partsFormats, timezone, {
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const get = (type: string) =>
    Number(format.formatToParts(at).find((p) => p.type === type)?.value ?? 0);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** The zone's offset from UTC at `at`, in minutes (+60 for Europe/Berlin in winter). */
export function offsetMinutes(at: number, timezone: string): number {
  const name =
    cached(offsetFormats, timezone, { timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** The instant whose wall-clock time in `timezone` is `wall` (wall fields read as UTC). */
export function fromWallTime(wall: number, timezone: string): number {
  const guess = wall - offsetMinutes(wall, timezone) * 60_000;
  return wall - offsetMinutes(guess, timezone) * 60_000;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `at` as an ISO 8601 date-time in `timezone`, with its offset: 2026-11-23T18:00:00+01:00. */
export function isoInZone(at: number, timezone: string): string {
  const p = localParts(at, timezone);
  const offset = offsetMinutes(at, timezone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `at` for a person in `timezone`: "today 18:00", "tomorrow 08:00", "Mon 30 Nov 08:00" (with
 * the year when it is not this year's).
 */
export function formatLocal(at: number, timezone: string, now: number): string {
  const p = localParts(at, timezone);
  const today = localParts(now, timezone);
  const dayNumber = (q: LocalParts) => Date.UTC(q.year, q.month - 1, q.day) / 86_400_000;
  const time = `${pad(p.hour)}:${pad(p.minute)}`;
  const days = dayNumber(p) - dayNumber(today);
  if (days === 0) return `today ${time}`;
  if (days === 1) return `tomorrow ${time}`;
  const weekday = WEEKDAYS[new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay()];
  const year = p.year === today.year ? '' : ` ${p.year}`;
  return `${weekday} ${p.day} ${MONTHS[p.month - 1]}${year} ${time}`;
}
