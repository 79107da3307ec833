import { describe, expect, it } from 'vitest';
import { createCalendar } from '../../src/usage/calendar.ts';

const TZ = 'Europe/Berlin';
const truth = new Intl.DateTimeFormat('en-CA', { timeZone: TZ, dateStyle: 'short' });
const dayTruth = (ts: number) => truth.format(new Date(ts));

describe('the calendar', () => {
  it('names the local day of any time, walking forward, back and jumping, across DST', () => {
    const calendar = createCalendar(TZ);
    // Around the end of summer time (2026-10-25, 03:00 CEST becomes 02:00 CET).
    const start = Date.UTC(2026, 9, 23, 20, 0);
    const times: number[] = [];
    for (let t = start; t < start + 4 * 86_400_000; t += 7 * 60_000 + 13) times.push(t);
    const order = [...times, ...[...times].reverse(), ...times.filter((_, i) => i % 97 === 0)];
    for (const ts of order) expect([ts, calendar.dayOf(ts)]).toEqual([ts, dayTruth(ts)]);
  });

  it('puts the next day’s start at local midnight, also on a 25-hour day', () => {
    const calendar = createCalendar(TZ);
    const next = calendar.nextDayStart(Date.UTC(2026, 9, 25, 12, 0));
    expect(new Date(next).toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(calendar.dayOf(next - 1)).toBe('2026-10-25');
    expect(calendar.dayOf(next)).toBe('2026-10-26');
  });
});
