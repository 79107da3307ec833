import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import type { InboundEvent } from '../../src/core/types.ts';
import { createLogger } from '../../src/logging/logger.ts';
import type { InboxRepo } from '../../src/store/inbox-repo.ts';
import { createConsumer } from '../../src/telegram/consume.ts';

const text = (updateId: number, chatId: number) => ({
  update_id: updateId,
  message: {
    message_id: updateId,
    date: 1_700_000_000,
    chat: { id: chatId, type: 'private' },
    from: { id: chatId, is_bot: false, first_name: 'U' },
    text: `hello from ${chatId}`,
  },
});

function consumer(onEvent: (event: InboundEvent) => void) {
  const done: number[] = [];
  const inbox = { markDone: (ids: readonly number[]) => done.push(...ids) } as unknown as InboxRepo;
  const log = createLogger({ level: 'silent', secrets: [] });
  return { consume: createConsumer({ inbox, clock: systemClock, log, onEvent }), done };
}

describe('the update consumer', () => {
  it("runs each update of a batch on to its turn's first I/O before the next one starts", async () => {
    const steps: string[] = [];
    // A turn that prepares across a few awaits, as a model turn does, then "sends" its request.
    const { consume } = consumer((event) => {
      const chat = event.address.chatId;
      void (async () => {
        steps.push(`start ${chat}`);
        for (let i = 0; i < 5; i++) await Promise.resolve();
        steps.push(`request ${chat}`);
      })();
    });
    // The runner hands a getUpdates answer's updates over one after another, without waiting.
    const handled = [consume(text(1, 501), 1), consume(text(2, 502), 2), consume(text(3, 503), 3)];
    // The first starts at once (nothing to wait for); the others wait their own task.
    expect(steps).toEqual(['start 501']);
    await Promise.all(handled);
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toEqual([
      'start 501',
      'request 501',
      'start 502',
      'request 502',
      'start 503',
      'request 503',
    ]);
    // The next answer's first update starts at once too.
    const next = consume(text(4, 504), 4);
    expect(steps.at(-1)).toBe('start 504');
    await next;
  });

  it('settles a malformed update as done without handing it on', async () => {
    const events: InboundEvent[] = [];
    const { consume, done } = consumer((event) => events.push(event));
    await consume({ update_id: 9, message: { message_id: 'x', chat: { id: 1 } } }, 9);
    expect(events).toEqual([]);
    expect(done).toEqual([9]);
  });
});
