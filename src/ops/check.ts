import type { Check } from '../core/check.ts';

export { type Check, fail, pass, warn } from '../core/check.ts';

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
