import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { BackupError, createBackup } from '../backup/backup.ts';
import { satchelHome, withEnvFile } from '../config/env-file.ts';
import { recordBackup } from '../ops/backup-record.ts';
import { formatBytes } from '../ops/doctor-local.ts';
import type { CliCommand } from './command.ts';

const HELP = `Usage: npx satchel backup [path]

Writes one .tar.gz archive of SATCHEL_HOME's state: the core database (sessions, messages,
the usage ledger, schedules) and each pack's database, taken with SQLite's online backup
API, so it is safe while satchel runs; each pack's USER.md, MEMORY.md and files/; the packs
installed with \`satchel pack add\` (installed-packs/); the owner's model catalog
(SATCHEL_HOME/models.yaml; a SATCHEL_MODELS file elsewhere is named, not copied); and
documents kept without a pack (media/files/). Cached photos and logs are left out.

path   the archive to write, or a directory to write it in
       (default: satchel-backup-<date>-<time>.tar.gz in the current directory)

The archive holds every conversation: it is written readable by its owner only.
Restore it with \`npx satchel restore <archive>\`.`;

/** `satchel backup [path]`: the archive of SATCHEL_HOME, and where it went. */
export const backupCommand: CliCommand = {
  path: ['backup'],
  summary: 'write a consistent .tar.gz backup of the databases, notes and files',
  help: HELP,
  async run(args, io) {
    if (args.length > 1 || args[0]?.startsWith('-')) {
      io.stderr.write(`${HELP}\n`);
      return 2;
    }
    const env = withEnvFile(io.env, io.cwd);
    const home = satchelHome(env, io.cwd);
    const models = env.SATCHEL_MODELS ? path.resolve(io.cwd, env.SATCHEL_MODELS) : undefined;
    const now = new Date();
    const archive = archivePath(args[0], io.cwd, now);
    try {
      const result = await createBackup({ home, archive, now, ...(models ? { models } : {}) });
      // doctor --security reads it: a backup older than a week is worth a warning.
      recordBackup(home, { at: now.getTime(), archive: result.archive });
      const packs = result.packs.length > 0 ? `; packs: ${result.packs.join(', ')}` : '';
      io.stdout.write(
        `Backed up ${home} to ${result.archive} (${formatBytes(result.bytes)}, ` +
          `${result.files.length} files${packs}).\n`,
      );
      if (result.modelsLeftOut)
        io.stdout.write(
          `Your model catalog ${result.modelsLeftOut} (SATCHEL_MODELS) lies outside ` +
            `${home} and is not in the archive: keep a copy of it yourself.\n`,
        );
      return 0;
    } catch (error) {
      if (!(error instanceof BackupError)) throw error;
      io.stderr.write(`satchel backup: ${error.message}\n`);
      return 1;
    }
  },
};

/** The archive to write: `given` (a directory gets the default name inside it), or the default. */
export function archivePath(given: string | undefined, cwd: string, now: Date): string {
  const name = `satchel-backup-${stamp(now)}.tar.gz`;
  if (!given) return path.join(cwd, name);
  const resolved = path.resolve(cwd, given);
  return existsSync(resolved) && statSync(resolved).isDirectory()
    ? path.join(resolved, name)
    : resolved;
}

/** `20250131-184502`, in UTC so names sort the same on every machine. */
function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '-');
}
