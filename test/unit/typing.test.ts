import { describe, expect, it } from 'vitest';
import type { Outbox } from '../../src/outbound/outboxes.ts';
import { keepTyping } from '../../src/outbound/typing.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('typing indicator', () => {
  it('is shown at once, refreshed every 4 s, and stops when the turn ends', () => {
    const clock = new FakeClock();
    const shown: number[] = [];
    const dropped: string[] = [];
    const outbox = {
      chatAction: async () => {
        shown.push(clock.now());
      },
      dropWaiting: (_to: unknown, what: string) => dropped.push(what),
    } as unknown as Outbox;
    const start = clock.now();
    const stop = keepTyping(outbox, clock, { platform: 'tg', chatId: '1', threadId: '9' });
    clock.advance(9_000);
    stop();
    clock.advance(20_000);
    expect(shown.map((t) => t - start)).toEqual([0, 4000, 8000]);
    expect(clock.pending()).toBe(0);
    // A typing action still waiting for a slot would arrive after the reply: it is dropped.
    expect(dropped).toEqual(['sendChatAction']);
  });

  it('lets the turn go on before it shows typing, and shows none for a turn already over', () => {
    const clock = new FakeClock();
    const shown: number[] = [];
    const outbox = {
      chatAction: async () => void shown.push(clock.now()),
      dropWaiting: () => undefined,
    } as unknown as Outbox;
    const stop = keepTyping(outbox, clock, { platform: 'tg', chatId: '1' });
    expect(shown).toEqual([]);
    stop();
    clock.advance(10_000);
    expect(shown).toEqual([]);
  });
});
