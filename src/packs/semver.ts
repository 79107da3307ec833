/** A semantic version: `1.2.3`, with an optional pre-release (`-rc.1`) and build (`+build.5`). */
export const VERSION =
  /^\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/**
 * Semantic-version precedence (semver.org §11), for `pack add --upgrade`: the numbers
 * first; a pre-release (`1.0.0-rc.1`) is lower than its release; pre-release identifiers
 * compare one by one, numbers numerically, other identifiers in ASCII order, a number lower
 * than a word, and fewer identifiers lower when all before are equal. Build metadata
 * (`+build.5`) is ignored. Negative when `a` is lower than `b`, 0 when equal, positive when
 * higher.
 */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  for (let i = 0; i < 3; i++) {
    const d = compareNumbers(x.core[i] ?? '0', y.core[i] ?? '0');
    if (d !== 0) return d;
  }
  // A release is higher than any of its pre-releases.
  if (x.pre.length === 0 || y.pre.length === 0) return Math.sign(y.pre.length - x.pre.length);
  return comparePreRelease(x.pre, y.pre);
}

/** `1.2.3-rc.1+build`: the three numbers and the pre-release identifiers (none: a release). */
function parseVersion(version: string): { core: string[]; pre: string[] } {
  const [withoutBuild = ''] = version.trim().split('+');
  const dash = withoutBuild.indexOf('-');
  const core = dash < 0 ? withoutBuild : withoutBuild.slice(0, dash);
  const pre = dash < 0 ? '' : withoutBuild.slice(dash + 1);
  return { core: core.split('.'), pre: pre === '' ? [] : pre.split('.') };
}

function comparePreRelease(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = compareIdentifiers(a[i]!, b[i]!);
    if (d !== 0) return d;
  }
  return Math.sign(a.length - b.length);
}

const NUMERIC = /^\d+$/;

function compareIdentifiers(a: string, b: string): number {
  const numeric = [NUMERIC.test(a), NUMERIC.test(b)];
  if (numeric[0] && numeric[1]) return compareNumbers(a, b);
  if (numeric[0] !== numeric[1]) return numeric[0] ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Digit strings of any length (no Number overflow); anything else counts as 0. */
function compareNumbers(a: string, b: string): number {
  const big = (text: string) => (NUMERIC.test(text) ? BigInt(text) : 0n);
  const d = big(a) - big(b);
  return d === 0n ? 0 : d < 0n ? -1 : 1;
}
