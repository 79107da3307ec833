import { describe, expect, it } from 'vitest';
import { createAllowlist } from '../../src/inbound/allowlist.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('allowlist gate', () => {
  it('allows listed users anywhere', () => {
    const gate = createAllowlist([7], new FakeClock());
    expect(gate.check({ senderId: 7, chatType: 'private' })).toBe('allow');
    expect(gate.check({ senderId: 7, chatType: 'supergroup' })).toBe('allow');
  });

  it('replies to a stranger in private at most once per 10 minutes', () => {
    const clock = new FakeClock();
    const gate = createAllowlist([7], clock);
    expect(gate.check({ senderId: 8, chatType: 'private' })).toBe('deny-and-reply');
    clock.advance(9 * 60 * 1000);
    expect(gate.check({ senderId: 8, chatType: 'private' })).toBe('deny-silently');
    expect(gate.check({ senderId: 9, chatType: 'private' })).toBe('deny-and-reply');
    clock.advance(60 * 1000);
    expect(gate.check({ senderId: 8, chatType: 'private' })).toBe('deny-and-reply');
  });

  it('ignores strangers in groups silently, and an empty list denies everyone', () => {
    const gate = createAllowlist([], new FakeClock());
    expect(gate.check({ senderId: 8, chatType: 'group' })).toBe('deny-silently');
    expect(gate.check({ senderId: 8, chatType: 'private' })).toBe('deny-and-reply');
  });
});
