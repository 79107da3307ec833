/** Calendar days in a time zone: "today" is the user's today, not UTC's. */
export function createCalendar(timezone: string) {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const dayOf = (ts: number) => format.format(new Date(ts));

  return {
    timezone,
    dayOf,

    /** The first millisecond of the next calendar day after `ts` (found by bisection, DST-safe). */
    nextDayStart(ts: number): number {
      const today = dayOf(ts);
      let lo = ts;
      let hi = ts + 27 * 3600_000;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (dayOf(mid) === today) lo = mid;
        else hi = mid;
      }
      return hi;
    },
  };
}

export type Calendar = ReturnType<typeof createCalendar>;
