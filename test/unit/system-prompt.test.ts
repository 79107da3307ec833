import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../../src/agent/system-prompt.ts';
import { createSentStamps } from '../../src/agent/time-stamp.ts';
import type { ChatMessage } from '../../src/core/types.ts';

const sections = ['# Active pack: Journal\nA private journal.', '# USER.md\nName: Ada'];
const at = (iso: string) => Date.parse(iso);

describe('the system prompt', () => {
  it("is the core rules then the pack's sections, with nothing that changes by the minute", () => {
    const prompt = buildSystemPrompt({ sections });
    expect(prompt.startsWith('You are satchel')).toBe(true);
    expect(prompt.endsWith('# USER.md\nName: Ada')).toBe(true);
    expect(prompt).toContain('[Sent: YYYY-MM-DD Weekday HH:MM Zone]');
    // It says where the current date and time are: the clock line after the conversation.
    expect(prompt).toContain(
      'The system line `[Now: YYYY-MM-DD Weekday HH:MM Zone]` after the conversation is the current local date, weekday, time and time zone: today is its date.',
    );
    expect(prompt).not.toMatch(/Now: \d/);
  });
});

describe("the system prompt's clock line", () => {
  it('is a system message with the local ISO date, weekday, 24-hour time and zone', () => {
    expect(createSentStamps('Europe/Berlin').now(at('2026-03-29T00:59:59Z'))).toEqual({
      role: 'system',
      content: '[Now: 2026-03-29 Sunday 01:59 Europe/Berlin]',
    });
    // An hour on, the clocks went forward: 03:00 CEST.
    expect(createSentStamps('Europe/Berlin').now(at('2026-03-29T01:00:00Z')).content).toBe(
      '[Now: 2026-03-29 Sunday 03:00 Europe/Berlin]',
    );
    expect(createSentStamps('Pacific/Auckland').now(at('2025-12-31T11:00:00Z')).content).toBe(
      '[Now: 2026-01-01 Thursday 00:00 Pacific/Auckland]',
    );
  });
});

describe('the time each user message was sent', () => {
  it('is its local ISO date, weekday, 24-hour time and zone', () => {
    expect(createSentStamps('Europe/Berlin').line(at('2026-11-24T20:05:30Z'))).toBe(
      '[Sent: 2026-11-24 Tuesday 21:05 Europe/Berlin]',
    );
    const now = at('2026-11-24T23:30:00Z');
    expect(createSentStamps('UTC').line(now)).toBe('[Sent: 2026-11-24 Tuesday 23:30 UTC]');
    expect(createSentStamps('Asia/Tokyo').line(now)).toBe(
      '[Sent: 2026-11-25 Wednesday 08:30 Asia/Tokyo]',
    );
    expect(createSentStamps('UTC').line(at('2026-11-25T00:00:00Z'))).toBe(
      '[Sent: 2026-11-25 Wednesday 00:00 UTC]',
    );
  });

  it('goes on the first user message of each turn, from the time stored with it', () => {
    const stamps = createSentStamps('UTC');
    type Stored = ChatMessage & { turnId: string; createdAt: number };
    const history: Stored[] = [
      { role: 'user', content: 'a', turnId: 't1', createdAt: at('2026-11-24T08:00:00Z') },
      { role: 'user', content: 'b', turnId: 't1', createdAt: at('2026-11-24T08:00:01Z') },
      { role: 'assistant', content: 'ok', turnId: 't1', createdAt: at('2026-11-24T08:00:02Z') },
      { role: 'user', content: 'c', turnId: 't2', createdAt: at('2026-11-24T08:07:00Z') },
    ];
    expect(stamps.stamp(history).map((m) => m.content)).toEqual([
      '[Sent: 2026-11-24 Tuesday 08:00 UTC]\na',
      'b',
      'ok',
      '[Sent: 2026-11-24 Tuesday 08:07 UTC]\nc',
    ]);
    // The same history, later, reads the same: what was sent once is sent the same way.
    expect(stamps.stamp(history)).toEqual(stamps.stamp(history));
    expect(history[0]?.content).toBe('a');
  });
});
