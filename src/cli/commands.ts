import { readFileSync } from 'node:fs';
import type { CliIo } from '../core/cli-io.ts';
import type { CliCommand, CliCommandInfo, LazyCliCommand } from './command.ts';
import { runCli } from './dispatch.ts';
import {
  backupInfo,
  chatInfo,
  doctorInfo,
  modelsInfo,
  packAddInfo,
  packListInfo,
  packNewInfo,
  packRemoveInfo,
  packTestInfo,
  packTrustInfo,
  packValidateInfo,
  pairInfo,
  restoreInfo,
  setupInfo,
  startInfo,
  usageInfo,
} from './help.ts';

const lazy = (info: CliCommandInfo, load: () => Promise<CliCommand>): LazyCliCommand => ({
  ...info,
  load,
});

/**
 * Every `satchel` command, in the order `satchel --help` lists them. A command's module (and
 * through it its work: SDKs, the database) is imported only when that command runs.
 */
export const COMMANDS: readonly LazyCliCommand[] = [
  lazy(setupInfo, async () => (await import('./setup.ts')).setupCommand),
  lazy(startInfo, async () => (await import('./start.ts')).startCommand),
  lazy(chatInfo, async () => (await import('./chat.ts')).chatCommand),
  lazy(usageInfo, async () => (await import('./usage.ts')).usageCommand),
  lazy(modelsInfo, async () => (await import('./models.ts')).modelsCommand),
  lazy(doctorInfo, async () => (await import('./doctor.ts')).doctorCommand),
  lazy(pairInfo, async () => (await import('./pair.ts')).pairCommand),
  lazy(packValidateInfo, async () => (await import('./pack-validate.ts')).packValidateCommand),
  lazy(packNewInfo, async () => (await import('./pack-new.ts')).packNewCommand),
  lazy(packListInfo, async () => (await import('./pack-list.ts')).packListCommand),
  lazy(packTestInfo, async () => (await import('./pack-test.ts')).packTestCommand),
  lazy(packAddInfo, async () => (await import('./pack-add.ts')).packAddCommand),
  lazy(packRemoveInfo, async () => (await import('./pack-add.ts')).packRemoveCommand),
  lazy(packTrustInfo, async () => (await import('./pack-trust.ts')).packTrustCommand),
  lazy(backupInfo, async () => (await import('./backup.ts')).backupCommand),
  lazy(restoreInfo, async () => (await import('./restore.ts')).restoreCommand),
];

/** package.json's version, for `satchel --version`. */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * `satchel ARGS` on `io`, resolving with the exit code: the CLI's own entry, which
 * src/cli/main.ts runs on the process's streams and tests run in process.
 */
export function satchel(argv: string[], io: CliIo): Promise<number> {
  return runCli({ commands: COMMANDS, version: VERSION }, argv, io);
}
