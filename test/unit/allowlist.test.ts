import { describe, expect, it } from 'vitest';
import { createAllowlist } from '../../src/inbound/allowlist.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('allowlist gate', () => {
  it('allows listed users anywhere', () => {
    const gate = createAllowlist(['7'], new FakeClock());
    expect(gate.check({ senderId: '7', chatType: 'private' })).toBe('allow');
    expect(gate.check({ senderId: '7', chatType: 'supergroup' })).toBe('allow');
  });

  it('replies to a stranger in private at most once per 10 minutes', () => {
    const clock = new FakeClock();
    const gate = createAllowlist(['7'], clock);
    expect(gate.check({ senderId: '8', chatType: 'private' })).toBe('deny-and-reply');
    clock.advance(9 * 60 * 1000);
    expect(gate.check({ senderId: '8', chatType: 'private' })).toBe('deny-silently');
    expect(gate.check({ senderId: '9', chatType: 'private' })).toBe('deny-and-reply');
    clock.advance(60 * 1000);
    expect(gate.check({ senderId: '8', chatType: 'private' })).toBe('deny-and-reply');
  });

  it('ignores strangers in groups silently, and an empty list denies everyone', () => {
    const gate = createAllowlist([], new FakeClock());
    expect(gate.check({ senderId: '8', chatType: 'group' })).toBe('deny-silently');
    expect(gate.check({ senderId: '8', chatType: 'private' })).toBe('deny-and-reply');
  });

  it('forgets strangers whose cooldown is over, so a flood of them does not pile up', () => {
    const clock = new FakeClock();
    const gate = createAllowlist(['7'], clock);
    for (let id = 1000; id < 1300; id++) gate.check({ senderId: String(id), chatType: 'private' });
    expect(gate.remembered).toBe(300);
    clock.advance(10 * 60 * 1000);
    gate.check({ senderId: '5000', chatType: 'private' });
    expect(gate.remembered).toBe(1);
    // Still within the cooldown: not told again.
    expect(gate.check({ senderId: '5000', chatType: 'private' })).toBe('deny-silently');
  });
});
