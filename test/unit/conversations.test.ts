import { describe, expect, it } from 'vitest';
import type { Origin } from '../../src/core/origin.ts';
import type { InboundEvent } from '../../src/core/types.ts';
import type { OutboundText } from '../../src/outbound/compose.ts';
import { BUSY, createConversations } from '../../src/turn/conversations.ts';
import { sourceKey } from '../../src/turn/inputs.ts';
import type { Replies } from '../../src/turn/replies.ts';
import {
  MAX_STEERED,
  MAX_STEERED_BYTES,
  type QueueMode,
  type SteerBox,
} from '../../src/turn/steering.ts';
import { FakeClock } from '../support/fake-clock.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
let nextKey = 1;
const event = (payload: Partial<InboundEvent> & Pick<InboundEvent, 'kind'>): InboundEvent =>
  ({
    origin: { platform: 'mem', keys: [String(nextKey++)] },
    address: { platform: 'mem', chatId: '1' },
    chatType: 'private',
    senderId: 1,
    receivedAt: 0,
    ...payload,
  }) as InboundEvent;
const text = (body: string) =>
  event({ kind: 'text', text: body } as Partial<InboundEvent> & { kind: 'text' });
const document = (name: string) =>
  event({
    kind: 'document',
    file: { fileId: name },
    name,
    mimeType: 'text/plain',
    caption: '',
  } as Partial<InboundEvent> & { kind: 'document' });

/** The conversations over a turn that waits until `release`, recording what ran and what was said. */
function rig(queueMode: QueueMode = 'followup') {
  const clock = new FakeClock();
  const ran: string[][] = [];
  const said: string[] = [];
  const releases: Array<() => void> = [];
  const boxes: SteerBox[] = [];
  /** The source keys of messages "stored by an earlier run". */
  const stored = new Set<string>();
  const replies = {
    reply: async (_to: unknown, message: OutboundText | undefined, _origins: Origin[]) => {
      if (message) said.push(message.text);
    },
    settle: () => {},
    acknowledge: () => {},
  } as unknown as Replies;
  const conversations = createConversations({
    clock,
    log: silent,
    batchWindowMs: 0,
    queueMode: () => queueMode,
    stored: (keys) => keys.every((key) => stored.has(key)),
    replies,
    run: (events, _signal, steer) => {
      boxes.push(steer);
      ran.push(
        events.map((e) => (e.kind === 'document' ? e.name : e.kind === 'text' ? e.text : e.kind)),
      );
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    runJob: async () => 'delivered',
    jobDone: () => {},
  });
  return { clock, conversations, ran, said, releases, boxes, stored };
}

describe('the conversation lane', () => {
  it('answers a sixth waiting text "busy", but never refuses files: they wait their turn', async () => {
    const { clock, conversations, ran, said, releases } = rig();
    conversations.push(text('running'));
    for (let i = 1; i <= 5; i++) conversations.push(text(`waiting ${i}`));
    conversations.push(text('one too many'));
    expect(said).toEqual([BUSY]);

    // Three separate bursts of files, each past the album window: three more turns wait.
    for (const burst of [['a.txt', 'b.txt'], ['c.txt'], ['d.txt', 'e.txt']]) {
      for (const name of burst) conversations.push(document(name));
      clock.advance(1000);
    }
    expect(said).toEqual([BUSY]);

    // Everything that waited runs, in order, the files gathered by burst.
    for (let i = 0; i < 9; i++) {
      await Promise.resolve();
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(ran).toEqual([
      ['running'],
      ['waiting 1'],
      ['waiting 2'],
      ['waiting 3'],
      ['waiting 4'],
      ['waiting 5'],
      ['a.txt', 'b.txt'],
      ['c.txt'],
      ['d.txt', 'e.txt'],
    ]);
  });

  it('never answers "busy" to replayed texts an earlier run stored: they wait their turn', async () => {
    const { conversations, ran, said, releases, stored } = rig();
    const replays = Array.from({ length: 8 }, (_, i) => text(`replayed ${i + 1}`));
    for (const replay of replays) stored.add(sourceKey(replay));
    conversations.push(text('running'));
    for (const replay of replays) conversations.push(replay);
    conversations.push(text('new'));
    expect(said).toEqual([BUSY]);
    for (let i = 0; i < 9; i++) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(ran).toEqual([['running'], ...replays.map((_, i) => [`replayed ${i + 1}`])]);
  });

  it('in steer mode holds the texts of the person whose turn runs for it, never out of order', async () => {
    const { conversations, ran, releases, boxes } = rig('steer');
    conversations.push(text('running'));
    conversations.push(text('also this'));
    conversations.push(event({ kind: 'text', text: 'someone else', senderId: 2 } as never));
    expect(ran).toEqual([['running']]);
    // Another person's message waits its turn, and the held text goes back to wait ahead of it.
    expect(boxes[0]!.take()).toEqual([]);

    conversations.push(text('and this'));
    expect(boxes[0]!.take()).toEqual([]);
    for (let i = 0; i < 3; i++) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(ran).toEqual([['running'], ['also this'], ['someone else'], ['and this']]);
  });

  it('in steer mode gives a running turn the texts its person sends while nothing else waits', () => {
    const { conversations, ran, boxes } = rig('steer');
    conversations.push(text('running'));
    conversations.push(text('also this'));
    conversations.push(text('and this'));
    const taken = boxes[0]!.take();
    expect(taken.map((e) => (e.kind === 'text' ? e.text : ''))).toEqual(['also this', 'and this']);
    expect(boxes[0]!.absorbed()).toEqual(taken);
    conversations.push(document('later.txt'));
    expect(boxes[0]!.take()).toEqual([]);
    expect(ran).toEqual([['running']]);
  });
});

describe('steering is bounded (SPEC §18)', () => {
  const texts = (events: readonly InboundEvent[]) =>
    events.map((e) => (e.kind === 'text' ? e.text : e.kind));
  /** Lets each waiting turn run (and finish) in order. */
  async function runAll(releases: Array<() => void>, turns: number) {
    for (let i = 0; i < turns; i++) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('a turn takes in at most 20 messages; more wait as followups, and past five turns are "busy"', async () => {
    const { conversations, ran, said, releases, boxes } = rig('steer');
    conversations.push(text('running'));
    for (let i = 1; i <= 20; i++) conversations.push(text(`s${i}`));
    expect(MAX_STEERED).toBe(20);
    expect(texts(boxes[0]!.take())).toEqual(Array.from({ length: 20 }, (_, i) => `s${i + 1}`));
    for (let i = 21; i <= 27; i++) conversations.push(text(`s${i}`));
    expect(said).toEqual([BUSY, BUSY]);
    expect(boxes[0]!.take()).toEqual([]);
    expect(boxes[0]!.absorbed()).toHaveLength(20);
    await runAll(releases, 6);
    expect(ran).toEqual([['running'], ['s21'], ['s22'], ['s23'], ['s24'], ['s25']]);
  });

  it('a turn takes in at most 32 KB of messages: the one past it waits for the next turn', async () => {
    const { conversations, ran, said, releases, boxes } = rig('steer');
    const long = (i: number) => `${i}`.padEnd(4000, '.');
    conversations.push(text('running'));
    for (let i = 1; i <= 8; i++) conversations.push(text(long(i)));
    expect(8 * 4000).toBeLessThanOrEqual(MAX_STEERED_BYTES);
    expect(boxes[0]!.take()).toHaveLength(8);
    conversations.push(text(long(9)));
    conversations.push(text('short'));
    expect(boxes[0]!.take()).toEqual([]);
    await runAll(releases, 3);
    expect(ran).toEqual([['running'], [long(9)], ['short']]);
    expect(said).toEqual([]);
  });

  it('what a full turn held and had not taken in yet goes with the next text to the next turn, in order', async () => {
    const { conversations, ran, said, releases, boxes } = rig('steer');
    conversations.push(text('running'));
    for (let i = 1; i <= 23; i++) conversations.push(text(`s${i}`));
    expect(boxes[0]!.take()).toEqual([]);
    await runAll(releases, 4);
    expect(ran).toEqual([
      ['running'],
      Array.from({ length: 21 }, (_, i) => `s${i + 1}`),
      ['s22'],
      ['s23'],
    ]);
    expect(said).toEqual([]);
  });
});
