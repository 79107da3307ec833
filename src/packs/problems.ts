import { SatchelError } from '../core/errors.ts';

/** One thing wrong with a pack: the file, the field (or `(sql)`, `(yaml)`…), what is wrong. */
export interface PackProblem {
  file: string;
  field: string;
  problem: string;
  /** The line in `file` (1-based), where the problem has one. */
  line?: number | undefined;
  /** The earlier pack that already has this pack's name (or display name), for a clash. */
  clashesWith?: { name: string; dir: string } | undefined;
}

/**
 * "`pack.yml` line 12: `tools[3]` — unknown tool `db_qurey` (did you mean `db_query`?)": one
 * line per problem, for logs and `pack validate`. A field in parentheses (`(yaml)`,
 * `(file)`, `(sql)`) names a kind of problem, not a field, and is written as it is.
 */
export function formatProblem(p: PackProblem): string {
  const where = `\`${p.file}\`${p.line ? ` line ${p.line}` : ''}`;
  const field = p.field.startsWith('(') ? p.field : `\`${p.field}\``;
  return `${where}: ${field} — ${p.problem}`;
}

/**
 * A pack that cannot load (or whose database cannot be brought up to date). It carries every
 * problem found, not only the first; the message has one line per problem.
 */
export class PackError extends SatchelError {
  readonly problems: PackProblem[];

  constructor(problems: PackProblem[]) {
    super('pack_invalid', problems.map(formatProblem).join('\n'));
    this.problems = problems;
  }
}
