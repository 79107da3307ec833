/**
 * One line of `satchel doctor`'s checklist. `fail` lines carry a fix and make the exit code
 * non-zero; `warn` lines are worth knowing and do not.
 */
export interface Check {
  status: 'pass' | 'fail' | 'warn';
  title: string;
  /** More lines under the title (what was found). */
  detail?: string[];
  /** What to do about a `fail` or a `warn`. */
  fix?: string;
}

export const pass = (title: string, detail?: string[]): Check => ({
  status: 'pass',
  title,
  ...(detail?.length ? { detail } : {}),
});

export const fail = (title: string, fix: string, detail?: string[]): Check => ({
  status: 'fail',
  title,
  fix,
  ...(detail?.length ? { detail } : {}),
});

export const warn = (title: string, fix: string): Check => ({ status: 'warn', title, fix });

const MARK: Record<Check['status'], string> = { pass: '✓', fail: '✗', warn: '!' };

/** The checklist as the terminal shows it: a mark per line, details and fixes indented. */
export function formatChecks(checks: readonly Check[]): string {
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`${MARK[check.status]} ${check.title}`);
    for (const line of check.detail ?? []) lines.push(`    ${line}`);
    if (check.fix) lines.push(`    fix: ${check.fix}`);
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  lines.push(
    '',
    failed === 0
      ? 'All checks passed.'
      : `${failed} check${failed === 1 ? '' : 's'} failed: see the fixes above.`,
  );
  return `${lines.join('\n')}\n`;
}
