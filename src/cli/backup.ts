import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { BackupError, createBackup } from '../backup/backup.ts';
import { BACKUPS_FOLDER } from '../backup/backups-folder.ts';
import { fileStamp } from '../backup/stamp.ts';
import { satchelHome, withEnvFile } from '../config/env-file.ts';
import { recordBackup } from '../ops/backup-record.ts';
import { formatBytes } from '../ops/doctor-local.ts';
import type { CliCommand } from './command.ts';
import { backupInfo } from './help.ts';

/** `satchel backup [path]`: the archive of SATCHEL_HOME, and where it went. */
export const backupCommand: CliCommand = {
  ...backupInfo,
  async run(args, io) {
    if (args.length > 1 || args[0]?.startsWith('-')) {
      io.stderr.write(`${backupInfo.help}\n`);
      return 2;
    }
    const env = withEnvFile(io.env, io.cwd);
    const home = satchelHome(env, io.cwd);
    const models = env.SATCHEL_MODELS ? path.resolve(io.cwd, env.SATCHEL_MODELS) : undefined;
    const now = new Date();
    const archive = archivePath(args[0], { cwd: io.cwd, home }, now);
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

/**
 * The archive to write: `given` (a directory gets `satchel-backup-<date>.tar.gz` inside it),
 * else `SATCHEL_HOME/backups/<date>.tar.gz`, out of the checkout and out of later backups.
 */
export function archivePath(
  given: string | undefined,
  where: { cwd: string; home: string },
  now: Date,
): string {
  if (!given) return path.join(where.home, BACKUPS_FOLDER, `${fileStamp(now)}.tar.gz`);
  const name = `satchel-backup-${fileStamp(now)}.tar.gz`;
  const resolved = path.resolve(where.cwd, given);
  return existsSync(resolved) && statSync(resolved).isDirectory()
    ? path.join(resolved, name)
    : resolved;
}
