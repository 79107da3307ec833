import { parseEnv } from 'node:util';
import { envLine, envText } from './env-output.ts';

/** What setup decided for the variables it asks about: a value, or undefined to drop it. */
export type EnvAnswers = ReadonlyMap<string, string | undefined>;

/** One variable setup changes in the file, as it is shown to the person. */
export interface EnvChange {
  name: string;
  kind: 'added' | 'changed' | 'removed';
  /** The value written (added, changed). */
  value?: string;
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/;

/**
 * The file setup writes: with no `old` text, a new `.env` of the answers; with one, the old
 * file with each answered variable's line replaced where it stands (a second line of the
 * same name dropped), a dropped one removed, a new one added at the end — every other line
 * (comments, variables setup does not ask about) kept as it was. Also says what changed
 * and which of the old variables were kept untouched.
 */
export function mergeEnv(
  old: string | undefined,
  answers: EnvAnswers,
): { text: string; changes: EnvChange[]; kept: string[] } {
  const before = old === undefined ? {} : parseEnv(old);
  const changes: EnvChange[] = [];
  for (const [name, value] of answers) {
    const was = before[name];
    if (value === undefined) {
      if (was !== undefined) changes.push({ name, kind: 'removed' });
    } else if (was === undefined) changes.push({ name, kind: 'added', value });
    else if (was !== value) changes.push({ name, kind: 'changed', value });
  }
  const kept = Object.keys(before).filter((name) => !answers.has(name));
  if (old === undefined) {
    const set = [...answers].filter((e): e is [string, string] => e[1] !== undefined);
    return { text: envText(set), changes, kept };
  }
  const written = new Set<string>();
  const lines: string[] = [];
  for (const line of old.replace(/\n$/, '').split('\n')) {
    const name = ASSIGNMENT.exec(line)?.[1];
    if (name === undefined || !answers.has(name)) lines.push(line);
    else if (!written.has(name)) {
      written.add(name);
      const value = answers.get(name);
      // An unchanged value keeps its line as the owner wrote it (quotes, `export`).
      // (Judged on this line's own value: a later line of the same name may differ.)
      if (value !== undefined)
        lines.push(parseEnv(line)[name] === value ? line : envLine(name, value));
    }
  }
  for (const [name, value] of answers)
    if (!written.has(name) && value !== undefined) lines.push(envLine(name, value));
  return { text: `${lines.join('\n')}\n`, changes, kept };
}

/** Names whose values are secrets: shown as set, never as typed. */
const SECRET = /KEY|TOKEN|SECRET|PASSWORD/;

/** The lines that tell the person what setup changes in `name` and what it keeps. */
export function describeChanges(name: string, changes: EnvChange[], kept: string[]): string {
  if (changes.length === 0) return `${name}: nothing changes.`;
  const shown = (c: EnvChange) =>
    c.kind === 'removed'
      ? `  - ${c.name} (removed)`
      : `  ${c.kind === 'added' ? '+' : '~'} ${c.name}=${SECRET.test(c.name) ? '(new value, not shown)' : c.value}`;
  const lines = [`Changes to ${name}:`, ...changes.map(shown)];
  if (kept.length > 0) lines.push(`  kept as they were: ${kept.join(', ')}`);
  return lines.join('\n');
}
