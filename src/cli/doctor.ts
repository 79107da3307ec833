import type { CliIo } from '../core/cli-io.ts';
import { type Check, formatChecks } from '../ops/check.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand } from './command.ts';
import { doctorInfo } from './help.ts';

/**
 * `satchel doctor`: the checklist, and exit 0 only when every check passes. Each checklist
 * loads its own checks: `--security` needs neither the edges nor the providers.
 */
export const doctorCommand: CliCommand = {
  ...doctorInfo,
  async run(args, io) {
    const { positionals, values } = parseCommandArgs(args, {
      security: { type: 'boolean' },
      fix: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.fix && !values.security) throw new UsageError('--fix goes with --security');
    const { withEnvFile } = await import('../config/env-file.ts');
    const env = withEnvFile(io.env, io.cwd);
    if (values.security) return security(io, env, values.fix ?? false);
    const [{ runDoctor }, { lintEnvFile }, { edgesOf, edgeVariables }] = await Promise.all([
      import('../ops/doctor.ts'),
      import('../config/env-lint.ts'),
      import('../edges.ts'),
    ]);
    const envFileProblems = lintEnvFile(io.cwd, edgeVariables());
    return report(io, await runDoctor({ env, envFileProblems, edges: edgesOf }));
  },
};

async function security(
  io: CliIo,
  env: Record<string, string | undefined>,
  fix: boolean,
): Promise<number> {
  const [{ runSecurityDoctor }, { edgesOf }] = await Promise.all([
    import('../ops/doctor-security.ts'),
    import('../edges.ts'),
  ]);
  const { checks, fixed, left } = await runSecurityDoctor({
    env,
    cwd: io.cwd,
    now: Date.now(),
    fix,
    edges: edgesOf,
  });
  if (fix) io.stdout.write(fixReport(fixed, left));
  return report(io, checks);
}

/** What --fix changed, then what it would not change and why. */
function fixReport(fixed: readonly string[], left: readonly string[]): string {
  const lines = (list: readonly string[]) => list.map((line) => `  ${line}\n`).join('');
  let text =
    fixed.length === 0
      ? 'Nothing to fix in file modes.\n'
      : `Fixed ${fixed.length} file mode(s):\n${lines(fixed)}`;
  if (left.length > 0) text += `Left ${left.length} as they are:\n${lines(left)}`;
  return `${text}\n`;
}

function report(io: CliIo, checks: readonly Check[]): number {
  io.stdout.write(formatChecks(checks));
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}
