/** Calendar days in a time zone: "today" is the user's today, not UTC's. */
export function createCalendar(timezone: string) {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const formatDay = (ts: number) => format.format(new Date(ts));

  /** The first millisecond of the next calendar day after `ts` (found by bisection, DST-safe). */
  function nextDayStart(ts: number): number {
    const today = formatDay(ts);
    let lo = ts;
    let hi = ts + 27 * 3600_000;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (formatDay(mid) === today) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /**
   * The day of the latest time asked for, from that time to the day's end: the ledger and the
   * quota gate ask before and after every model call, and formatting a date cost more than
   * the rest of booking the call.
   */
  let known = { day: '', from: 0, to: 0 };
  function dayOf(ts: number): string {
    if (ts >= known.from && ts < known.to) return known.day;
    const day = formatDay(ts);
    if (ts >= known.to) known = { day, from: ts, to: nextDayStart(ts) };
    return day;
  }

  return { timezone, dayOf, nextDayStart };
}

export type Calendar = ReturnType<typeof createCalendar>;
