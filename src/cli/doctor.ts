import { withEnvFile } from '../config/env-file.ts';
import { formatChecks } from '../ops/check.ts';
import { runDoctor } from '../ops/doctor.ts';
import type { CliCommand } from './command.ts';

const HELP = `Usage: satchel doctor

Checks that satchel can run here, without starting it: Node, the configuration (.env and
the environment), the allowlist, the bot token (getMe), each model provider (its model list,
which costs no tokens), the packs, their MCP servers (started, their tools listed as the
model sees them, and stopped), the database and the dashboard port. Prints a checklist
with ✓ (passed), ✗ (failed, with a fix) and ! (worth knowing). Nothing is sent, fetched or
written. Exits 0 when nothing failed, 1 otherwise.`;

/** `satchel doctor`: the checklist, and exit 0 only when every check passes. */
export const doctorCommand: CliCommand = {
  path: ['doctor'],
  summary: 'check the configuration, token, providers, packs, MCP servers, database and port',
  help: HELP,
  async run(args, io) {
    if (args.length > 0) {
      io.stderr.write(`${HELP}\n`);
      return 2;
    }
    const checks = await runDoctor({ env: withEnvFile(io.env, io.cwd) });
    io.stdout.write(formatChecks(checks));
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
