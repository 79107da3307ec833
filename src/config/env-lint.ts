import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { didYouMean } from '../packs/suggest.ts';
import { envSchema } from './schema.ts';

/** One mistake in `.env`, with its line number; the message never holds a value. */
export interface EnvFileProblem {
  line: number;
  message: string;
}

/**
 * Variables read by Node, the system or the terminal rather than the config schema, and
 * legitimately put in `.env`: not reported as unknown.
 */
const NOT_OURS = new Set([
  'NODE_ENV',
  'NODE_OPTIONS',
  'NODE_EXTRA_CA_CERTS',
  'TZ',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'NO_COLOR',
]);

/**
 * Every variable the core's configuration reads (pack settings, `SATCHEL_PACK_*`, are matched
 * by prefix); each edge names its own (src/edges.ts: `edgeVariables`).
 */
export const KNOWN_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

const ASSIGNMENT = /^\s*(?:export\s+)?([^=\s#]+)\s*=(.*)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The mistakes of a `.env` text that would otherwise pass silently (SPEC §1): a variable
 * satchel does not read (with the nearest known name), and a line that is not `NAME=value`
 * (Node's parser quietly glues it to the next line). Values are never echoed: they may be
 * secrets.
 */
export function lintEnvText(text: string, edgeVariables: readonly string[]): EnvFileProblem[] {
  const known = [...KNOWN_VARIABLES, ...edgeVariables];
  const isKnown = (name: string) =>
    known.includes(name) || name.startsWith('SATCHEL_PACK_') || NOT_OURS.has(name);
  const problems: EnvFileProblem[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = i + 1;
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    const match = ASSIGNMENT.exec(raw);
    if (!match) {
      problems.push({ line, message: notAssignment(raw, isKnown) });
      continue;
    }
    const name = match[1]!;
    i = skipMultiline(lines, i, match[2]!.trim());
    if (!NAME.test(name)) {
      problems.push({ line, message: `"${name}" is not a valid variable name (NAME=value)` });
      continue;
    }
    if (isKnown(name)) continue;
    problems.push({
      line,
      message: `${name} is not a variable satchel reads${didYouMean(name, known)}`,
    });
  }
  return problems;
}

/** The problems of `<cwd>/.env`, or none when there is no such file. */
export function lintEnvFile(cwd: string, edgeVariables: readonly string[]): EnvFileProblem[] {
  const file = path.join(cwd, '.env');
  return existsSync(file) ? lintEnvText(readFileSync(file, 'utf8'), edgeVariables) : [];
}

/** "line 3: …", as doctor and the start-up warning show a problem. */
export const formatEnvProblem = (p: EnvFileProblem): string => `.env line ${p.line}: ${p.message}`;

function notAssignment(raw: string, isKnown: (name: string) => boolean): string {
  const name = raw.trim().split(/[\s:]+/)[0]!;
  const fix = NAME.test(name) && isKnown(name) ? `: write ${name}=<value>` : '';
  return `not NAME=value, so it is ignored (and the line after it may be misread)${fix}`;
}

/** A double- or single-quoted value may span lines: the index of its last line. */
function skipMultiline(lines: readonly string[], start: number, value: string): number {
  const quote = value[0];
  if (quote !== '"' && quote !== "'" && quote !== '`') return start;
  if (value.length > 1 && value.indexOf(quote, 1) !== -1) return start;
  for (let j = start + 1; j < lines.length; j++) if (lines[j]!.includes(quote)) return j;
  return start;
}
