import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE } from '../store/file-modes.ts';

/** The file in SATCHEL_HOME where `satchel backup` notes its last archive, for doctor. */
export const LAST_BACKUP_FILE = 'last-backup.json';

export interface BackupRecord {
  /** When the archive was written (ms since the epoch). */
  at: number;
  archive: string;
}

/** Notes a backup that was just written (its path names where the owner keeps them). */
export function recordBackup(home: string, record: BackupRecord): void {
  writeFileSync(path.join(home, LAST_BACKUP_FILE), `${JSON.stringify(record, null, 2)}\n`, {
    mode: PRIVATE_FILE,
  });
}

/** The last backup noted in `home`, or undefined when none was (or the note is unreadable). */
export function lastBackup(home: string): BackupRecord | undefined {
  try {
    const value = JSON.parse(
      readFileSync(path.join(home, LAST_BACKUP_FILE), 'utf8'),
    ) as Partial<BackupRecord>;
    return typeof value.at === 'number' && typeof value.archive === 'string'
      ? { at: value.at, archive: value.archive }
      : undefined;
  } catch {
    return undefined;
  }
}
