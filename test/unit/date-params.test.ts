/**
 * The date parameters of a pack's queries (SPEC §3): the user's local days in
 * SATCHEL_TIMEZONE, weeks from Monday to Sunday, at month, week, year and DST edges, in a
 * zone with DST (Europe/Berlin) and one far from UTC (Pacific/Auckland).
 */
import { describe, expect, it } from 'vitest';
import { dateParams, explainQueryError, unknownParamMessage } from '../../src/packs/date-params.ts';
import { FakeClock } from '../support/fake-clock.ts';

const at = (iso: string) => Date.parse(iso);
/** The parameters without `now`, which is the same instant in every zone. */
const days = (iso: string, zone: string) => {
  const { now: _, ...rest } = dateParams(at(iso), zone);
  return rest;
};

describe('dateParams', () => {
  it('gives now as the UTC instant in the form the packs store created_at in', () => {
    expect(dateParams(at('2026-01-05T09:00:00Z'), 'Europe/Berlin')).toEqual({
      now: '2026-01-05T09:00:00.000Z',
      today: '2026-01-05',
      yesterday: '2026-01-04',
      week_start: '2026-01-05',
      week_end: '2026-01-11',
      month_start: '2026-01-01',
    });
  });

  it('reads an injected clock', () => {
    const clock = new FakeClock(at('2026-02-11T12:34:56.789Z'));
    expect(dateParams(clock, 'UTC')).toMatchObject({
      now: '2026-02-11T12:34:56.789Z',
      today: '2026-02-11',
      week_start: '2026-02-09',
      week_end: '2026-02-15',
    });
  });

  it('follows Berlin across the spring DST change (Sunday 29 March 2026)', () => {
    // 00:30 CET on the Sunday: the day of the change, the last day of its week.
    expect(days('2026-03-28T23:30:00Z', 'Europe/Berlin')).toEqual({
      today: '2026-03-29',
      yesterday: '2026-03-28',
      week_start: '2026-03-23',
      week_end: '2026-03-29',
      month_start: '2026-03-01',
    });
    // 23:59 CEST, one UTC offset later: still Sunday.
    expect(days('2026-03-29T21:59:59Z', 'Europe/Berlin').today).toBe('2026-03-29');
    // Midnight CEST: Monday, a new week.
    expect(days('2026-03-29T22:00:00Z', 'Europe/Berlin')).toEqual({
      today: '2026-03-30',
      yesterday: '2026-03-29',
      week_start: '2026-03-30',
      week_end: '2026-04-05',
      month_start: '2026-03-01',
    });
  });

  it('follows Berlin across the autumn DST change (Sunday 25 October 2026)', () => {
    expect(days('2026-10-24T22:00:00Z', 'Europe/Berlin')).toMatchObject({
      today: '2026-10-25',
      yesterday: '2026-10-24',
      week_start: '2026-10-19',
      week_end: '2026-10-25',
    });
    // 02:30 happens twice (CEST, then CET): the same day both times.
    expect(days('2026-10-25T00:30:00Z', 'Europe/Berlin').today).toBe('2026-10-25');
    expect(days('2026-10-25T01:30:00Z', 'Europe/Berlin').today).toBe('2026-10-25');
    // 23:59:59 CET, a 25-hour day later.
    expect(days('2026-10-25T22:59:59Z', 'Europe/Berlin').today).toBe('2026-10-25');
    expect(days('2026-10-25T23:00:00Z', 'Europe/Berlin')).toMatchObject({
      today: '2026-10-26',
      week_start: '2026-10-26',
      week_end: '2026-11-01',
    });
  });

  it('is the new year in Auckland while UTC is still in the old one', () => {
    // 23:59:59 NZDT on Wednesday 31 December 2025.
    expect(days('2025-12-31T10:59:59Z', 'Pacific/Auckland')).toEqual({
      today: '2025-12-31',
      yesterday: '2025-12-30',
      week_start: '2025-12-29',
      week_end: '2026-01-04',
      month_start: '2025-12-01',
    });
    // Midnight NZDT: Thursday 1 January 2026, the week that began in the old year.
    expect(days('2025-12-31T11:00:00Z', 'Pacific/Auckland')).toEqual({
      today: '2026-01-01',
      yesterday: '2025-12-31',
      week_start: '2025-12-29',
      week_end: '2026-01-04',
      month_start: '2026-01-01',
    });
    expect(days('2025-12-31T11:00:00Z', 'UTC').today).toBe('2025-12-31');
  });

  it('starts a month, and a week, in Auckland on a day that is still the previous one in UTC', () => {
    // Sunday 1 March 2026, 00:00 NZDT (+13) = Saturday 28 February 11:00 UTC.
    expect(days('2026-02-28T11:00:00Z', 'Pacific/Auckland')).toEqual({
      today: '2026-03-01',
      yesterday: '2026-02-28',
      week_start: '2026-02-23',
      week_end: '2026-03-01',
      month_start: '2026-03-01',
    });
    // Monday 5 January 2026, 00:00 NZDT = Sunday 4 January 11:00 UTC.
    expect(days('2026-01-04T11:00:00Z', 'Pacific/Auckland')).toMatchObject({
      today: '2026-01-05',
      week_start: '2026-01-05',
      week_end: '2026-01-11',
    });
  });

  it("follows Auckland's DST end (Sunday 5 April 2026, +13 to +12)", () => {
    expect(days('2026-04-05T11:59:59Z', 'Pacific/Auckland')).toMatchObject({
      today: '2026-04-05',
      week_start: '2026-03-30',
      week_end: '2026-04-05',
      month_start: '2026-04-01',
    });
    expect(days('2026-04-05T12:00:00Z', 'Pacific/Auckland')).toMatchObject({
      today: '2026-04-06',
      yesterday: '2026-04-05',
      week_start: '2026-04-06',
    });
  });

  it('knows leap days', () => {
    expect(days('2028-03-01T08:00:00Z', 'UTC')).toMatchObject({
      yesterday: '2028-02-29',
      week_start: '2028-02-28',
      week_end: '2028-03-05',
    });
    expect(days('2026-03-01T08:00:00Z', 'UTC').yesterday).toBe('2026-02-28');
  });
});

describe('a named parameter a query was not given', () => {
  it('is explained, naming the parameters there are', () => {
    const message = explainQueryError('Missing named parameter "tomorrow"');
    expect(message).toBe(unknownParamMessage('tomorrow'));
    expect(message).toBe(
      'the query uses :tomorrow, which has no value: the named parameters are :now, :today, :yesterday, :week_start, :week_end, :month_start (computed in the user\'s time zone); pass other values with ? placeholders and "params"',
    );
    expect(explainQueryError('no such table: nope')).toBe('no such table: nope');
  });
});
