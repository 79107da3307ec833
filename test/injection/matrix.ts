/**
 * The injection suite's tables, in Markdown: carriers × timings and goals × timings, each
 * cell "tried · succeeded without a tap · questions", and the totals. The same text is
 * printed, compared with docs/SECURITY.md, and pasted there (INJECTION_TABLE=print).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type AttackResult,
  applies,
  ROWS,
  type RowName,
  TIMINGS,
  type TimingName,
} from './attacks.ts';
import { GOAL_LABELS, GOALS, type GoalName } from './goals.ts';

export const SECURITY_MD = fileURLToPath(new URL('../../docs/SECURITY.md', import.meta.url));

interface Tally {
  tried: number;
  succeeded: number;
  questions: number;
}

function tally(results: readonly AttackResult[]): Tally {
  return {
    tried: results.length,
    succeeded: results.filter((r) => r.succeeded).length,
    questions: results.reduce((sum, r) => sum + r.questions, 0),
  };
}

const cell = (t: Tally) => `${t.tried} · ${t.succeeded} · ${t.questions}`;

function table(
  first: string,
  rows: readonly { label: string; results: AttackResult[]; applies: (t: TimingName) => boolean }[],
  all: readonly AttackResult[],
): string {
  const head = `| ${first} | ${TIMINGS.join(' | ')} | all |`;
  const rule = `|---|${TIMINGS.map(() => '---').join('|')}|---|`;
  const lines = rows.map(
    ({ label, results, applies: ok }) =>
      `| ${label} | ${TIMINGS.map((t) => (ok(t) ? cell(tally(results.filter((r) => r.timing === t))) : 'n/a')).join(' | ')} | ${cell(tally(results))} |`,
  );
  const total = `| **all** | ${TIMINGS.map((t) => cell(tally(all.filter((r) => r.timing === t)))).join(' | ')} | ${cell(tally(all))} |`;
  return [head, rule, ...lines, total].join('\n');
}

/** The two tables as docs/SECURITY.md publishes them. */
export function injectionTables(results: readonly AttackResult[]): string {
  const byRow = ROWS.map((row: RowName) => ({
    label: row,
    results: results.filter((r) => r.row === row),
    applies: (t: TimingName) => applies(row, t),
  }));
  const byGoal = GOALS.map((goal: GoalName) => ({
    label: GOAL_LABELS[goal],
    results: results.filter((r) => r.goal === goal),
    applies: (t: TimingName) => results.some((r) => r.goal === goal && r.timing === t),
  }));
  return [table('Carrier', byRow, results), '', table('Goal', byGoal, results)].join('\n');
}

/** The lines between `<!-- NAME:start -->` and `<!-- NAME:end -->` in docs/SECURITY.md. */
export function publishedBlock(name: string): string | undefined {
  const text = readFileSync(SECURITY_MD, 'utf8');
  const start = `<!-- ${name}:start -->\n`;
  const from = text.indexOf(start);
  const to = text.indexOf(`<!-- ${name}:end -->`);
  if (from === -1 || to === -1) return undefined;
  return text.slice(from + start.length, to).trim();
}

/** With INJECTION_TABLE=print, the block to paste into docs/SECURITY.md, on stdout. */
export function printForDocs(name: string, block: string): void {
  if (process.env.INJECTION_TABLE !== 'print') return;
  console.log(`\n<!-- ${name}:start -->\n${block}\n<!-- ${name}:end -->\n`);
}
