import path from 'node:path';
import { RestoreError, restoreBackup } from '../backup/restore.ts';
import { satchelHome, withEnvFile } from '../config/env-file.ts';
import type { CliCommand } from './command.ts';
import { restoreInfo } from './help.ts';

/** `satchel restore <archive> [--home DIR]`. */
export const restoreCommand: CliCommand = {
  ...restoreInfo,
  async run(args, io) {
    const parsed = parseArgs(args);
    if (!parsed) {
      io.stderr.write(`${restoreInfo.help}\n`);
      return 2;
    }
    const env = withEnvFile(io.env, io.cwd);
    const home = parsed.home ? path.resolve(io.cwd, parsed.home) : satchelHome(env, io.cwd);
    try {
      const result = await restoreBackup({ archive: path.resolve(io.cwd, parsed.archive), home });
      const packs = result.packs.length > 0 ? `; packs: ${result.packs.join(', ')}` : '';
      io.stdout.write(
        `Restored the backup of ${result.createdAt} into ${result.home} ` +
          `(${result.files} files${packs}).\n` +
          (parsed.home ? `Start satchel with SATCHEL_HOME=${result.home} to use it.\n` : ''),
      );
      return 0;
    } catch (error) {
      if (!(error instanceof RestoreError)) throw error;
      io.stderr.write(`satchel restore: ${error.message}\n`);
      return 1;
    }
  },
};

function parseArgs(args: string[]): { archive: string; home: string | undefined } | undefined {
  let archive: string | undefined;
  let home: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--home') {
      home = args[++i];
      if (!home) return undefined;
    } else if (arg.startsWith('--home=')) home = arg.slice('--home='.length);
    else if (arg.startsWith('-') || archive !== undefined) return undefined;
    else archive = arg;
  }
  return archive ? { archive, home } : undefined;
}
