import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import { installPack, type NpmFetch, PackInstallError, removePack } from '../packs/install.ts';
import { noMoreThan, parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand, CliIo } from './command.ts';
import { packDirs } from './pack-list.ts';

const ADD_HELP = `Usage: satchel pack add SOURCE [--upgrade [--force]]

Installs a pack into SATCHEL_HOME/installed-packs/<name>/, which satchel always searches
besides SATCHEL_PACKS; it is offered at the next start. SOURCE is
  DIR                     a pack folder
  FILE.tgz                an archive made by npm pack
  npm:NAME[@VERSION]      a package on the npm registry (fetched with npm pack; no
                          install script runs)
The pack is validated before anything is copied. An archive holding anything but plain
files and folders inside the pack, or too big, is refused with nothing written.

Options:
  --upgrade  replace the installed pack of that name (its migrations run at the next start)
  --force    with --upgrade, allow an older version

Exit codes: 0 installed, 1 refused, 2 bad arguments.`;

const REMOVE_HELP = `Usage: satchel pack remove NAME [--purge]

Removes a pack installed with satchel pack add. Its data (SATCHEL_HOME/packs/NAME/: its
database, notes and files) stays, so adding it again finds it, unless --purge is given.

Exit codes: 0 removed, 1 refused, 2 bad arguments.`;

function homeOf(io: Pick<CliIo, 'env' | 'cwd'>): string {
  const env = withEnvFile(io.env, io.cwd);
  return path.resolve(io.cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME));
}

/** `satchel pack add`, with the npm fetch step replaceable (tests run it offline). */
export function createPackAddCommand(fetchNpm?: NpmFetch): CliCommand {
  return {
    path: ['pack', 'add'],
    summary: 'install a pack from a folder, an npm pack .tgz or npm:NAME',
    help: ADD_HELP,
    async run(args, io) {
      const { positionals, values } = parseCommandArgs(args, {
        upgrade: { type: 'boolean' },
        force: { type: 'boolean' },
      });
      const [source] = positionals;
      if (source === undefined)
        throw new UsageError('which pack? Give a folder, an npm pack .tgz or npm:NAME');
      noMoreThan(positionals, 1);
      if (values.force && !values.upgrade) throw new UsageError('--force goes with --upgrade');
      try {
        const done = await installPack({
          source,
          home: homeOf(io),
          cwd: io.cwd,
          packDirs: packDirs(io),
          upgrade: values.upgrade ?? false,
          force: values.force ?? false,
          ...(fetchNpm ? { fetchNpm } : {}),
        });
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

export const packAddCommand = createPackAddCommand();

export const packRemoveCommand: CliCommand = {
  path: ['pack', 'remove'],
  summary: 'remove a pack installed with pack add (its data stays unless --purge)',
  help: REMOVE_HELP,
  async run(args, io) {
    const { positionals, values } = parseCommandArgs(args, { purge: { type: 'boolean' } });
    const [name] = positionals;
    if (name === undefined) throw new UsageError('which pack? Give its name');
    noMoreThan(positionals, 1);
    const home = homeOf(io);
    try {
      const { purged } = removePack(home, name, values.purge ?? false);
      const data = path.join(home, 'packs', name);
      io.stdout.write(
        purged
          ? `Removed ${name} and its data.\n`
          : `Removed ${name}${values.purge ? '' : `; its data stays in ${data}`}.\n`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof PackInstallError)) throw error;
      io.stderr.write(`satchel pack remove: ${error.message}\n`);
      return 1;
    }
  },
};
