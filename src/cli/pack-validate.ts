import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import { validatePack, validationReport } from '../packs/validate.ts';
import { oneArgument, parseCommandArgs } from './args.ts';
import type { CliCommand } from './command.ts';

const HELP = `Usage: npx satchel pack validate DIR

Checks the pack in DIR without starting the bot — its manifest, skills, schema and
migrations — and reports every problem found, each with its file and field. When
SATCHEL_HOME already holds this pack's database, its pending migrations are tried on a
copy of it, so a migration that would fail on the real data shows up here.

Exit codes: 0 valid, 1 problems found, 2 bad arguments.`;

/** `satchel pack validate DIR`: a summary on stdout (exit 0), or every problem on stderr (1). */
export const packValidateCommand: CliCommand = {
  path: ['pack', 'validate'],
  summary: 'check a pack (manifest, skills, schema, migrations) without starting the bot',
  help: HELP,
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {});
    const dir = oneArgument(positionals, 'satchel pack validate needs the folder of a pack');
    const env = withEnvFile(io.env, io.cwd);
    const home = path.resolve(io.cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME));
    const folder = path.resolve(io.cwd, dir);
    const missing = !existsSync(folder)
      ? 'does not exist'
      : !statSync(folder).isDirectory()
        ? 'is not a folder: give the folder that holds pack.yml'
        : undefined;
    if (missing) {
      io.stderr.write(`satchel pack validate: ${folder} ${missing}.\n`);
      return 1;
    }
    const report = validationReport(validatePack(folder, home, env));
    (report.ok ? io.stdout : io.stderr).write(`${report.text}\n`);
    return report.ok ? 0 : 1;
  },
};
