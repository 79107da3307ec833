import { existsSync } from 'node:fs';
import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import type { CliIo } from '../core/cli-io.ts';
import {
  type ApproveInstall,
  installPack,
  type NpmFetch,
  PackInstallError,
} from '../packs/install.ts';
import {
  comparePermissions,
  formatChanges,
  formatPermissions,
  packPermissions,
} from '../packs/permissions.ts';
import { removePack } from '../packs/remove.ts';
import { oneArgument, parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand } from './command.ts';
import { askYesNo, isTerminal } from './confirm.ts';
import { packAddInfo, packRemoveInfo } from './help.ts';
import { packDirs } from './pack-list.ts';

function homeOf(io: Pick<CliIo, 'env' | 'cwd'>): string {
  const env = withEnvFile(io.env, io.cwd);
  return path.resolve(io.cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME));
}

/** `satchel pack add`, with the npm fetch step replaceable (tests run it offline). */
export function createPackAddCommand(fetchNpm?: NpmFetch): CliCommand {
  return {
    ...packAddInfo,
    async run(args, io) {
      const { positionals, values } = parseCommandArgs(args, {
        upgrade: { type: 'boolean' },
        force: { type: 'boolean' },
        yes: { type: 'boolean' },
      });
      const source = oneArgument(
        positionals,
        'which pack? Give a folder, an npm pack .tgz or npm:NAME',
      );
      if (values.force && !values.upgrade) throw new UsageError('--force goes with --upgrade');
      try {
        const done = await installPack({
          source,
          home: homeOf(io),
          cwd: io.cwd,
          packDirs: packDirs(io),
          upgrade: values.upgrade ?? false,
          force: values.force ?? false,
          approve: approveFrom(io, values.yes ?? false),
          ...(fetchNpm ? { fetchNpm } : {}),
        });
        if (done.leftOut)
          io.stdout.write(
            `Left out ${done.leftOut.join(', ')}: an archive at the pack folder's top (as npm pack leaves) is not part of the pack.\n`,
          );
        const was = done.previous ? ` (was ${done.previous})` : '';
        io.stdout.write(
          `Installed ${done.name} ${done.version}${was} in ${done.dir}; it is offered at the next start.\n`,
        );
        return 0;
      } catch (error) {
        if (!(error instanceof PackInstallError)) throw error;
        io.stderr.write(`satchel pack add: ${error.message}\n`);
        return 1;
      }
    },
  };
}

/**
 * Shows what the pack may do (on an upgrade, what changes) and gets the owner's yes: from
 * --yes, or asked on the terminal. Without a terminal, and on a "no", it refuses.
 */
function approveFrom(io: CliIo, yes: boolean): ApproveInstall {
  return async (next, previous, upgrade) => {
    const label = `${next.name} ${next.version}`;
    if (upgrade && previous) {
      const changes = comparePermissions(packPermissions(previous), packPermissions(next));
      const title = `${label} replaces ${previous.version}. What it may do changes:`;
      io.stdout.write(formatChanges(title, changes));
      if (changes.added.length === 0) return true;
    } else {
      const title = `${label} (${next.display_name}) may use:`;
      io.stdout.write(formatPermissions(title, packPermissions(next)));
    }
    if (yes) return true;
    if (!isTerminal(io))
      throw new PackInstallError(
        `there is no terminal to ask whether to install ${label}; nothing was installed. Run it with --yes to accept what it may do (above).`,
      );
    return askYesNo(io, `Install ${label}?`);
  };
}

export const packAddCommand = createPackAddCommand();

export const packRemoveCommand: CliCommand = {
  ...packRemoveInfo,
  async run(args, io) {
    const { positionals, values } = parseCommandArgs(args, { purge: { type: 'boolean' } });
    const name = oneArgument(positionals, 'which pack? Give its name');
    const home = homeOf(io);
    try {
      const { purged } = removePack(home, name, values.purge ?? false, packDirs(io));
      const data = path.join(home, 'packs', name);
      // Only a folder that is there is named: a pack never started has no data yet.
      const stays = !values.purge && existsSync(data) ? `; its data stays in ${data}` : '';
      io.stdout.write(purged ? `Removed ${name} and its data.\n` : `Removed ${name}${stays}.\n`);
      return 0;
    } catch (error) {
      if (!(error instanceof PackInstallError)) throw error;
      io.stderr.write(`satchel pack remove: ${error.message}\n`);
      return 1;
    }
  },
};
