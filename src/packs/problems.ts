import { SatchelError } from '../core/errors.ts';

/** One thing wrong with a pack: the file, the field (or `(sql)`, `(yaml)`…), what is wrong. */
export interface PackProblem {
  file: string;
  field: string;
  problem: string;
  /** The line in `file` (1-based), where the problem has one. */
  line?: number | undefined;
}

/** `file: field: problem (line N)`: one line per problem, for logs and `pack validate`. */
export function formatProblem(p: PackProblem): string {
  return `${p.file}: ${p.field}: ${p.problem}${p.line ? ` (line ${p.line})` : ''}`;
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
