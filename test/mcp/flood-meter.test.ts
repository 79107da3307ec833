/** The flood meter on a fake clock: when reading pauses and resumes, and when it gives up. */
import { describe, expect, it } from 'vitest';
import { createFloodMeter, type Flood, type FloodKind } from '../../src/mcp/flood-meter.ts';
import { createLineSplitter } from '../../src/mcp/line-splitter.ts';
import { FakeClock } from '../support/fake-clock.ts';

const LIMITS = { stderrBytes: 1000, junkLines: 10, notifications: 20, seconds: 3 };

function meter() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
  const calls: string[] = [];
  const floods: Flood[] = [];
  const m = createFloodMeter(LIMITS, clock, {
    pause: (kind: FloodKind) => calls.push(`pause ${kind}`),
    resume: (kind: FloodKind) => calls.push(`resume ${kind}`),
    flooding: (flood) => floods.push(flood),
  });
  return { m, clock, calls, floods };
}

describe('the flood meter', () => {
  it('pauses a stream at its limit for the rest of the second, and resumes it in the next', () => {
    const { m, clock, calls } = meter();
    m.add('stdout_junk', 9);
    m.add('stderr', 999);
    expect(calls).toEqual([]);
    clock.advance(400);
    m.add('stdout_junk', 1);
    m.add('stdout_junk', 5);
    expect(calls).toEqual(['pause stdout_junk']);
    clock.advance(599);
    expect(calls).toEqual(['pause stdout_junk']);
    clock.advance(1);
    expect(calls).toEqual(['pause stdout_junk', 'resume stdout_junk']);
  });

  it('reports a flood once, after `seconds` full seconds in a row, and then stays quiet', () => {
    const { m, clock, calls, floods } = meter();
    for (let second = 0; second < 3; second++) {
      m.add('notifications', 25);
      clock.advance(1000);
    }
    expect(floods).toEqual([{ kind: 'notifications', perSecond: 25, limit: 20, seconds: 3 }]);
    // The third full second is the flood: no pause, no resume, then nothing more.
    expect(calls.filter((c) => c.startsWith('pause'))).toHaveLength(2);
    m.add('notifications', 100);
    m.add('stderr', 5000);
    clock.advance(5000);
    expect(floods).toHaveLength(1);
    expect(calls).toHaveLength(4);
  });

  it('starts counting again after a second under the limit', () => {
    const { m, clock, floods } = meter();
    for (const amount of [1000, 1000, 10, 1000, 1000]) {
      m.add('stderr', amount);
      clock.advance(1000);
    }
    expect(floods).toEqual([]);
    m.add('stderr', 1000);
    expect(floods).toMatchObject([{ kind: 'stderr', seconds: 3 }]);
  });
});

describe('the line splitter', () => {
  it('joins a line that spans chunks, and refuses one over its bound', () => {
    const lines: string[] = [];
    const split = createLineSplitter(10, (line) => lines.push(line.toString()));
    split.push(Buffer.from('ab\ncd'));
    split.push(Buffer.from('ef'));
    split.push(Buffer.from('g\n\nh'));
    expect(lines).toEqual(['ab', 'cdefg', '']);
    expect(() => split.push(Buffer.from('0123456789'))).toThrow(/over 10 bytes/);
    split.push(Buffer.from('ok\n'));
    expect(lines.at(-1)).toBe('ok');
  });
});
