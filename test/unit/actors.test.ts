import { describe, expect, it } from 'vitest';
import { createSerialQueues } from '../../src/core/serial-queues.ts';
import { createActors } from '../../src/turn/actors.ts';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

describe('serial queues', () => {
  it('runs one key in order, keys side by side, and forgets a key once it runs dry', async () => {
    const queues = createSerialQueues<number>();
    const order: string[] = [];
    const first = gate();
    const a1 = queues.add(1, async () => {
      await first.opened;
      order.push('a1');
    });
    const a2 = queues.add(1, async () => void order.push('a2'));
    const b1 = queues.add(2, async () => void order.push('b1'));
    await b1;
    expect(order).toEqual(['b1']);
    expect(queues.waiting(1)).toBe(1);
    first.open();
    await Promise.all([a1, a2]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
    await queues.idle();
    expect(queues.size).toBe(0);
  });

  it('starts a task at once in an idle lane, and goes on with the next one after a failure', async () => {
    const queues = createSerialQueues<number>();
    const order: string[] = [];
    const failed = queues.add(1, async () => {
      order.push('first');
      throw new Error('boom');
    });
    expect(order).toEqual(['first']);
    const next = queues.add(1, async () => void order.push('second'));
    await expect(failed).rejects.toThrow('boom');
    await next;
    expect(order).toEqual(['first', 'second']);
  });

  it('holds nothing after many keys have come and gone, failed tasks included', async () => {
    const queues = createSerialQueues<number>();
    const tasks = [];
    for (let key = 0; key < 1000; key++) {
      tasks.push(queues.add(key, async () => key));
      tasks.push(queues.add(key, () => Promise.reject(new Error('boom'))).catch(() => -1));
    }
    expect(queues.size).toBe(1000);
    await Promise.all(tasks);
    await queues.idle();
    expect(queues.size).toBe(0);
  });
});

describe('conversation actors', () => {
  it('forgets a conversation once its turns are over', async () => {
    const actors = createActors({ maxWaiting: 5 });
    for (let i = 0; i < 50; i++) actors.submit(`chat-${i}`, async () => {});
    expect(actors.active).toBe(50);
    await actors.idle();
    expect(actors.active).toBe(0);
  });

  it('once closed, starts no waiting turn and lets the running one finish', async () => {
    const actors = createActors({ maxWaiting: 5 });
    const ran: string[] = [];
    const first = gate();
    actors.submit('c', async () => {
      await first.opened;
      ran.push('running');
    });
    actors.submit('c', async () => void ran.push('waiting'));
    actors.close();
    first.open();
    await actors.idle();
    expect(ran).toEqual(['running']);
    expect(actors.active).toBe(0);
  });

  it('aborts only the running turn of the conversation asked for', async () => {
    const actors = createActors({ maxWaiting: 5 });
    const reasons: unknown[] = [];
    const hold = (signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => {
          reasons.push(signal.reason);
          resolve();
        });
        setTimeout(resolve, 200);
      });
    actors.submit('a', hold);
    actors.submit('b', hold);
    await Promise.resolve();
    expect(actors.abortRunning('a', 'stop')).toBe(true);
    expect(actors.abortRunning('nobody', 'stop')).toBe(false);
    await actors.idle();
    expect(reasons).toEqual(['stop']);
  });
});
