import { describe, expect, it } from 'vitest';
import { lazyChild } from '../../src/core/lazy-child.ts';
import type { Logger } from '../../src/core/ports.ts';

/** A logger that records its children and the lines each writes, with their bindings. */
function recording() {
  const children: Record<string, unknown>[] = [];
  const lines: unknown[][] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const line =
      (level: string) =>
      (...args: unknown[]) =>
        void lines.push([level, bindings, ...args]);
    return {
      debug: line('debug'),
      info: line('info'),
      warn: line('warn'),
      error: line('error'),
      child: (more) => {
        children.push({ ...bindings, ...more });
        return make({ ...bindings, ...more });
      },
    };
  };
  return { log: make({}), children, lines };
}

describe('lazyChild', () => {
  it('makes the child on its first line only, once, and passes the arguments as given', () => {
    const { log, children, lines } = recording();
    const child = lazyChild(log, { turnId: 't1', pack: 'alpha' });
    expect(children).toEqual([]);
    child.info({ event: 'a' });
    child.warn({ event: 'b' }, 'message');
    expect(children).toEqual([{ turnId: 't1', pack: 'alpha' }]);
    expect(lines).toEqual([
      ['info', { turnId: 't1', pack: 'alpha' }, { event: 'a' }],
      ['warn', { turnId: 't1', pack: 'alpha' }, { event: 'b' }, 'message'],
    ]);
  });

  it('gives a child of its own bindings and the new ones', () => {
    const { log, lines } = recording();
    lazyChild(log, { turnId: 't1' }).child({ server: 'files' }).error({ event: 'c' }, 'x');
    expect(lines).toEqual([['error', { turnId: 't1', server: 'files' }, { event: 'c' }, 'x']]);
  });
});
