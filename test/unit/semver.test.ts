import { describe, expect, it } from 'vitest';
import { compareVersions, VERSION } from '../../src/packs/semver.ts';

describe('compareVersions (semver precedence)', () => {
  it('orders the example chain of semver.org §11, each lower than the next', () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ];
    for (let i = 0; i < chain.length; i++)
      for (let j = 0; j < chain.length; j++)
        expect(Math.sign(compareVersions(chain[i]!, chain[j]!)), `${chain[i]} vs ${chain[j]}`).toBe(
          Math.sign(i - j),
        );
  });

  it('compares the numbers as numbers, not as text', () => {
    expect(compareVersions('1.10.0', '1.9.0')).toBe(1);
    expect(compareVersions('0.0.10', '0.0.9')).toBe(1);
    expect(compareVersions('10.0.0', '9.99.99')).toBe(1);
    expect(compareVersions('12345678901234567890.0.0', '12345678901234567891.0.0')).toBe(-1);
  });

  it('puts a pre-release below its release and above the release before', () => {
    expect(compareVersions('2.0.0-rc.1', '2.0.0')).toBe(-1);
    expect(compareVersions('2.0.0', '2.0.0-rc.1')).toBe(1);
    expect(compareVersions('2.0.0-rc.1', '1.9.9')).toBe(1);
  });

  it('compares numeric identifiers numerically, and a number below a word', () => {
    expect(compareVersions('1.0.0-alpha.10', '1.0.0-alpha.9')).toBe(1);
    expect(compareVersions('1.0.0-1', '1.0.0-alpha')).toBe(-1);
    expect(compareVersions('1.0.0-alpha.1', '1.0.0-alpha.x')).toBe(-1);
    // Words compare in ASCII order: upper case before lower case, hyphen before letters.
    expect(compareVersions('1.0.0-Beta', '1.0.0-alpha')).toBe(-1);
    expect(compareVersions('1.0.0-a-b', '1.0.0-ab')).toBe(-1);
    // A longer set is higher when all before are equal.
    expect(compareVersions('1.0.0-alpha.1.0', '1.0.0-alpha.1')).toBe(1);
  });

  it('ignores build metadata, also when it holds a hyphen', () => {
    expect(compareVersions('1.0.0+build.5', '1.0.0')).toBe(0);
    expect(compareVersions('1.0.0+20261126', '1.0.0+20250101')).toBe(0);
    expect(compareVersions('1.0.0+build-7', '1.0.0')).toBe(0);
    expect(compareVersions('1.0.0-rc.1+build.1', '1.0.0-rc.1+build.2')).toBe(0);
    expect(compareVersions('1.0.0-rc.1+exp.sha', '1.0.0')).toBe(-1);
  });

  it('finds equal versions equal', () => {
    expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
    expect(compareVersions('1.2.3-rc.1', '1.2.3-rc.1')).toBe(0);
  });

  it('knows a version when it sees one', () => {
    for (const v of [
      '1.0.0',
      '10.20.30',
      '1.0.0-rc.1',
      '1.0.0-alpha-beta.7',
      '1.0.0+build.5',
      '1.0.0-rc.1+build-7.x',
    ])
      expect(VERSION.test(v), v).toBe(true);
    for (const v of ['v1.0.0', '1.0', '1.0.0-', '1.0.0-rc..1', '1.0.0+', '1.0.0-rc_1', ' 1.0.0'])
      expect(VERSION.test(v), v).toBe(false);
  });
});
