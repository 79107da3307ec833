import path from 'node:path';
import { type ApproveRestore, RestoreError, restoreBackup } from '../backup/restore.ts';
import { satchelHome, withEnvFile } from '../config/env-file.ts';
import type { CliIo } from '../core/cli-io.ts';
import { formatPermissions, packPermissions } from '../packs/permissions.ts';
import type { CliCommand } from './command.ts';
import { askYesNo, isTerminal } from './confirm.ts';
import { restoreInfo } from './help.ts';

/** `satchel restore <archive> [--home DIR] [--yes]`. */
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
      const result = await restoreBackup({
        archive: path.resolve(io.cwd, parsed.archive),
        home,
        approve: approveFrom(io, parsed.yes),
      });
      const packs = result.packs.length > 0 ? `; packs: ${result.packs.join(', ')}` : '';
      const installed =
        result.installedPacks.length > 0
          ? `; installed packs: ${result.installedPacks.join(', ')}`
          : '';
      io.stdout.write(
        `Restored the backup of ${result.createdAt} into ${result.home} ` +
          `(${result.files} files${packs}${installed}).\n` +
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

/**
 * Shows what each installed pack of the backup may do, as `pack add` does, and gets the
 * owner's yes: from --yes, or asked on the terminal. Without a terminal it refuses.
 */
function approveFrom(io: CliIo, yes: boolean): ApproveRestore {
  return async (packs) => {
    io.stdout.write(
      `This backup brings ${packs.length} installed pack(s), code that will run on this machine:\n`,
    );
    for (const pack of packs)
      io.stdout.write(
        pack.manifest
          ? formatPermissions(
              `${pack.name} ${pack.manifest.version} (${pack.manifest.display_name}) may use:`,
              packPermissions(pack.manifest),
            )
          : `${pack.name}: ${pack.problem}\n`,
      );
    if (yes) return true;
    const names = packs.map((p) => p.name).join(', ');
    if (!isTerminal(io))
      throw new RestoreError(
        `there is no terminal to ask whether to restore the installed packs ${names}; nothing was restored. Run it with --yes to accept what they may do (above).`,
      );
    return askYesNo(io, `Restore the backup with ${names}?`);
  };
}

function parseArgs(
  args: string[],
): { archive: string; home: string | undefined; yes: boolean } | undefined {
  let archive: string | undefined;
  let home: string | undefined;
  let yes = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--home') {
      home = args[++i];
      if (!home) return undefined;
    } else if (arg.startsWith('--home=')) home = arg.slice('--home='.length);
    else if (arg === '--yes') yes = true;
    else if (arg.startsWith('-') || archive !== undefined) return undefined;
    else archive = arg;
  }
  return archive ? { archive, home, yes } : undefined;
}
