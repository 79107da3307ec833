import { describe, expect, it } from 'vitest';
import { addressKey, type InboundEvent } from '../../src/core/types.ts';
import { createBatcher } from '../../src/inbound/batcher.ts';
import { FakeClock } from '../support/fake-clock.ts';

let nextUpdate = 1;
const text = (body: string, chatId = 1): InboundEvent => ({
  origin: { platform: 'tg', keys: [`update:${nextUpdate++}`] },
  address: { platform: 'tg', chatId: String(chatId) },
  chatType: 'private',
  senderId: String(chatId),
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
const photo = (groupId: string, fileId: string, caption = '', chatId = 1): InboundEvent => {
  const updateId = nextUpdate++;
  return {
    ...text('', chatId),
    origin: { platform: 'tg', keys: [`update:${updateId}`] },
    kind: 'album',
    groupId,
    photos: [{ file: { fileId }, updateId }],
    caption,
  };
};
const edit = (messageId: number, body: string, chatId = 1): InboundEvent => {
  const base = text(body, chatId);
  return { ...base, kind: 'edited', text: body, messageId: String(messageId) };
};
const bodies = (batch: InboundEvent[]) =>
  batch.map((e) => {
    if (e.kind === 'text') return e.text;
    if (e.kind === 'album')
      return `album:${e.photos.map((p) => p.file.fileId).join('+')}:${e.caption}`;
    if (e.kind === 'edited') return `edited:${e.text}`;
    return `/${e.kind === 'command' ? e.command : ''}`;
  });

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
    expect(bodies(batcher.take(addressKey({ platform: 'tg', chatId: '1' })))).toEqual(['a', 'a2']);
    expect(batcher.take(addressKey({ platform: 'tg', chatId: '1' }))).toEqual([]);
    batcher.close();
    clock.advance(10_000);
    expect(emitted).toEqual([]);
    expect(clock.pending()).toBe(0);
  });
});

describe('albums and edits', () => {
  it('gathers the photos of an album into one event, even with text batching off', () => {
    const { clock, emitted, batcher } = setup(0);
    batcher.push(photo('g1', 'p1', 'our trip'));
    clock.advance(300);
    batcher.push(photo('g1', 'p2'));
    batcher.push(photo('g1', 'p3'));
    clock.advance(799);
    expect(emitted).toEqual([]);
    clock.advance(1);
    expect(emitted).toEqual([['album:p1+p2+p3:our trip']]);
  });

  it('keeps the updates of every photo, so each is marked done with the answer', () => {
    const clock = new FakeClock();
    const emitted: InboundEvent[][] = [];
    const batcher = createBatcher({ windowMs: 0, clock, emit: (e) => emitted.push(e) });
    const items = [photo('g', 'a'), photo('g', 'b')];
    for (const item of items) batcher.push(item);
    clock.advance(800);
    expect(emitted[0]?.[0]?.origin).toEqual({
      platform: 'tg',
      keys: items.flatMap((i) => i.origin.keys),
    });
  });

  it('flushes an album before a text, and a new album before the next', () => {
    const { clock, emitted, batcher } = setup(0);
    batcher.push(photo('g1', 'p1'));
    batcher.push(photo('g2', 'q1'));
    batcher.push(text('after'));
    expect(emitted).toEqual([['album:p1:'], ['album:q1:'], ['after']]);
    clock.advance(10_000);
    expect(emitted).toHaveLength(3);
  });

  it('replaces a text still in the window with its edit', () => {
    const { clock, emitted, batcher } = setup();
    const original = text('teh plan');
    batcher.push({ ...original, messageId: '7' });
    batcher.push(edit(7, 'the plan'));
    clock.advance(800);
    expect(emitted).toEqual([['the plan']]);
  });

  it('passes a later edit on as its own event, after what is waiting', () => {
    const { clock, emitted, batcher } = setup();
    batcher.push({ ...text('new thing'), messageId: '9' });
    batcher.push(edit(3, 'fixed old thing'));
    expect(emitted).toEqual([['new thing'], ['edited:fixed old thing']]);
    clock.advance(800);
    expect(emitted).toHaveLength(2);
  });
});
