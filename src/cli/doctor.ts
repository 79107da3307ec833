import { edgesOf } from '../app.ts';
import { withEnvFile } from '../config/env-file.ts';
import { lintEnvFile } from '../config/env-lint.ts';
import { type Check, formatChecks } from '../ops/check.ts';
import { runDoctor } from '../ops/doctor.ts';
import { runSecurityDoctor } from '../ops/doctor-security.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand, CliIo } from './command.ts';

const HELP = `Usage: npx satchel doctor [--security [--fix]]

Checks that satchel can run here, without starting it: Node, the configuration (.env and
the environment), the allowlist, the bot token (getMe), each model provider (its model list,
which costs no tokens), the packs, their MCP servers (started, their tools listed as the
model sees them, and stopped), the database and the dashboard port. Prints a checklist
with ✓ (passed), ✗ (failed, with a fix) and ! (worth knowing). Nothing is sent, fetched or
written. Exits 0 when nothing failed, 1 otherwise.

Options:
  --security  check the installation as an attacker would look at it instead: .env and
              SATCHEL_HOME open to other users, the dashboard's binding and token, the
              webhook secret, an empty allowlist, secret-shaped values stored in the
              databases, TOOL_APPROVAL=off, packs that combine web access with external
              tools, withheld MCP tools, and the age of the last backup
  --fix       with --security, apply the safe fixes first (.env 0600, SATCHEL_HOME's
              folders 0700 and files 0600) and say what changed`;

/** `satchel doctor`: the checklist, and exit 0 only when every check passes. */
export const doctorCommand: CliCommand = {
  path: ['doctor'],
  summary: 'check the configuration, token, providers, packs, MCP servers, database and port',
  help: HELP,
  async run(args, io) {
    const { positionals, values } = parseCommandArgs(args, {
      security: { type: 'boolean' },
      fix: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.fix && !values.security) throw new UsageError('--fix goes with --security');
    const env = withEnvFile(io.env, io.cwd);
    if (values.security) return security(io, env, values.fix ?? false);
    return report(
      io,
      await runDoctor({ env, envFileProblems: lintEnvFile(io.cwd), edges: edgesOf }),
    );
  },
};

async function security(
  io: CliIo,
  env: Record<string, string | undefined>,
  fix: boolean,
): Promise<number> {
  const { checks, fixed } = await runSecurityDoctor({ env, cwd: io.cwd, now: Date.now(), fix });
  if (fix)
    io.stdout.write(
      fixed.length === 0
        ? 'Nothing to fix in file modes.\n\n'
        : `Fixed ${fixed.length} file mode(s):\n${fixed.map((line) => `  ${line}`).join('\n')}\n\n`,
    );
  return report(io, checks);
}

function report(io: CliIo, checks: readonly Check[]): number {
  io.stdout.write(formatChecks(checks));
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}
