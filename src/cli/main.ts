import { readFileSync } from 'node:fs';
import { backupCommand } from './backup.ts';
import { chatCommand } from './chat.ts';
import type { CliCommand } from './command.ts';
import { runCli } from './dispatch.ts';
import { doctorCommand } from './doctor.ts';
import { modelsCommand } from './models.ts';
import { packAddCommand, packRemoveCommand } from './pack-add.ts';
import { packListCommand } from './pack-list.ts';
import { packNewCommand } from './pack-new.ts';
import { packTestCommand } from './pack-test.ts';
import { packTrustCommand } from './pack-trust.ts';
import { packValidateCommand } from './pack-validate.ts';
import { pairCommand } from './pair.ts';
import { restoreCommand } from './restore.ts';
import { setupCommand } from './setup.ts';
import { startCommand } from './start.ts';
import { usageCommand } from './usage.ts';

/** Every `satchel` command, in the order `satchel --help` lists them. */
const COMMANDS: readonly CliCommand[] = [
  setupCommand,
  startCommand,
  chatCommand,
  usageCommand,
  modelsCommand,
  doctorCommand,
  pairCommand,
  packValidateCommand,
  packNewCommand,
  packListCommand,
  packTestCommand,
  packAddCommand,
  packRemoveCommand,
  packTrustCommand,
  backupCommand,
  restoreCommand,
];

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

process.exitCode = await runCli({ commands: COMMANDS, version }, process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
