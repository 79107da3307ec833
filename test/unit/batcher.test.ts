import { describe, expect, it } from 'vitest';
import { addressKey, type InboundEvent } from '../../src/core/types.ts';
import { createBatcher } from '../../src/inbound/batcher.ts';
import { FakeClock } from '../support/fake-clock.ts';

let nextUpdate = 1;
const text = (body: string, chatId = 1): InboundEvent => ({
  updateIds: [nextUpdate++],
  address: { platform: 'tg', chatId },
  chatType: 'private',
  senderId: chatId,
  receivedAt: 0,
  kind: 'text',
  text: body,
});
const command = (name: string, chatId = 1): InboundEvent => ({
  ...text(`/${name}`, chatId),
  kind: 'command',
  command: name,
  args: '',
});
const bodies = (batch: InboundEvent[]) =>
  batch.map((e) => (e.kind === 'text' ? e.text : `/${e.kind === 'command' ? e.command : ''}`));

function setup(windowMs = 800) {
  const clock = new FakeClock();
  const emitted: string[][] = [];
  const batcher = createBatcher({
    windowMs,
    clock,
    emit: (events) => emitted.push(bodies(events)),
  });
  return { clock, emitted, batcher };
}

describe('adaptive text batching', () => {
  it('joins texts that arrive within the window, restarting the window on each', () => {
    const { clock, emitted, batcher } = setup();
    batcher.push(text('a'));
    clock.advance(500);
    batcher.push(text('b'));
    clock.advance(700);
    batcher.push(text('c'));
    clock.advance(799);
    expect(emitted).toEqual([]);
    clock.advance(1);
    expect(emitted).toEqual([['a', 'b', 'c']]);
  });

  it('never keeps a batch open longer than four windows', () => {
    const { clock, emitted, batcher } = setup(100);
    for (let i = 0; i < 10; i++) {
      batcher.push(text(`t${i}`));
      clock.advance(90);
    }
    // Opened at 0, so it closes at 400 with the texts pushed at 0, 90, ..., 360.
    expect(emitted[0]).toEqual(['t0', 't1', 't2', 't3', 't4']);
  });

  it('flushes the open batch before a command so order is kept', () => {
    const { emitted, batcher } = setup();
    batcher.push(text('a'));
    batcher.push(text('b'));
    batcher.push(command('help'));
    expect(emitted).toEqual([['a', 'b'], ['/help']]);
  });

  it('keeps conversations apart', () => {
    const { clock, emitted, batcher } = setup();
    batcher.push(text('one', 1));
    batcher.push(text('two', 2));
    batcher.push(command('new', 2));
    expect(emitted).toEqual([['two'], ['/new']]);
    clock.advance(800);
    expect(emitted).toEqual([['two'], ['/new'], ['one']]);
  });

  it('emits at once when the window is 0', () => {
    const { emitted, batcher } = setup(0);
    batcher.push(text('a'));
    batcher.push(text('b'));
    expect(emitted).toEqual([['a'], ['b']]);
  });

  it("take hands back one conversation's open batch unsent; close drops the rest", () => {
    const { clock, emitted, batcher } = setup();
    batcher.push(text('a', 1));
    batcher.push(text('a2', 1));
    batcher.push(text('b', 2));
    expect(bodies(batcher.take(addressKey({ platform: 'tg', chatId: 1 })))).toEqual(['a', 'a2']);
    expect(batcher.take(addressKey({ platform: 'tg', chatId: 1 }))).toEqual([]);
    batcher.close();
    clock.advance(10_000);
    expect(emitted).toEqual([]);
    expect(clock.pending()).toBe(0);
  });
});
