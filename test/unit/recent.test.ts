import { describe, expect, it } from 'vitest';
import { createRecent } from '../../src/core/recent.ts';

describe('a map of recent entries', () => {
  it('forgets the entry used longest ago; a peek does not count as a use', () => {
    const recent = createRecent<string, number>(2);
    recent.set('a', 1);
    recent.set('b', 2);
    expect(recent.get('a')).toBe(1); // a is now the newest
    recent.set('c', 3); // b goes
    expect(recent.peek('b')).toBeUndefined();
    expect(recent.peek('a')).toBe(1); // a stays the oldest
    recent.set('d', 4); // a goes
    expect([recent.peek('a'), recent.peek('c'), recent.peek('d')]).toEqual([undefined, 3, 4]);
  });
});
