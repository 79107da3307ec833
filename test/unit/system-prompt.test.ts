import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../../src/agent/system-prompt.ts';

const sections = ['# Active pack: Journal\nA private journal.', '# USER.md\nName: Ada'];
const at = (iso: string) => Date.parse(iso);

describe('the system prompt', () => {
  it("ends with the user's local date and time, after the pack's sections", () => {
    const prompt = buildSystemPrompt({
      now: at('2026-11-24T20:05:30Z'),
      timezone: 'Europe/Berlin',
      sections,
    });
    expect(prompt.split('\n\n').at(-1)).toMatch(
      /^Now: Tuesday,? 24 November 2026 at 21:05 \(Europe\/Berlin\)\.$/,
    );
    expect(prompt.indexOf('# USER.md')).toBeLessThan(prompt.indexOf('Now:'));
  });

  it('changes only in its last line from one call to the next, so its prefix can be cached', () => {
    const prompt = (iso: string) => buildSystemPrompt({ now: at(iso), timezone: 'UTC', sections });
    const early = prompt('2026-11-24T08:00:59Z');
    const late = prompt('2026-11-24T08:01:00Z');
    const body = (p: string) => p.slice(0, p.lastIndexOf('\n\nNow:'));
    expect(body(late)).toBe(body(early));
    expect(early.endsWith('at 08:00 (UTC).')).toBe(true);
    expect(late.endsWith('at 08:01 (UTC).')).toBe(true);
    // A minute already formatted, asked again, gives the same line.
    expect(prompt('2026-11-24T08:00:01Z')).toBe(early);
  });

  it('keeps each time zone to its own local time', () => {
    const now = at('2026-11-24T23:30:00Z');
    const line = (timezone: string) => buildSystemPrompt({ now, timezone }).split('\n\n').at(-1);
    // The weekday's comma depends on the ICU version Node carries.
    expect(line('UTC')).toMatch(/^Now: Tuesday,? 24 November 2026 at 23:30 \(UTC\)\.$/);
    expect(line('Asia/Tokyo')).toMatch(
      /^Now: Wednesday,? 25 November 2026 at 08:30 \(Asia\/Tokyo\)\.$/,
    );
    expect(line('UTC')).toMatch(/^Now: Tuesday,? 24 November 2026 at 23:30 \(UTC\)\.$/);
  });
});
