import path from 'node:path';
import { RestoreError, restoreBackup } from '../backup/restore.ts';
import { satchelHome, withEnvFile } from '../config/env-file.ts';
import type { CliCommand } from './command.ts';

const HELP = `Usage: npx satchel restore <archive> [--home DIR]

Restores an archive written by \`npx satchel backup\` into SATCHEL_HOME, or into DIR with
--home. The target must not exist or be empty: a restore never overwrites data. To replace
a damaged home, stop satchel, move the directory aside, then restore. The whole archive is
checked against its manifest (each file's size and SHA-256; nothing else, no links, no paths
outside the target) before anything is written, and every database's integrity before
anything is moved into place; a failed restore leaves the target as it was.

Then start satchel with SATCHEL_HOME pointing at the restored directory: it has the same
sessions, usage ledger, schedules and pack data as when the backup was taken.`;

/** `satchel restore <archive> [--home DIR]`. */
export const restoreCommand: CliCommand = {
  path: ['restore'],
  summary: 'restore a backup archive into an empty SATCHEL_HOME',
  help: HELP,
  async run(args, io) {
    const parsed = parseArgs(args);
    if (!parsed) {
      io.stderr.write(`${HELP}\n`);
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
