import { unsafeArchivePath } from './archive-scan.ts';

/** The archive's first entry: what it holds, so a restore can prove it got all of it. */
export const MANIFEST_NAME = 'satchel-backup.json';
export const MANIFEST_FORMAT = 'satchel-backup';
/**
 * 2 added models.yaml and installed-packs/, 3 the homes of people and groups (SPEC §19): an
 * older satchel says to update, not "damaged".
 */
export const MANIFEST_VERSION = 3;

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT;
  version: number;
  /** ISO 8601. */
  created_at: string;
  /** Relative paths inside SATCHEL_HOME, with their size and SHA-256. */
  files: { path: string; size: number; sha256: string }[];
}

/**
 * Where a backup's files may go inside SATCHEL_HOME: a pack's homes (the owner's, and each
 * person's and group's under `people/` and `groups/`), installed packs, media. Any name below
 * `files/` or an installed pack's folder is accepted (with `s`, `.` matches line separators
 * too): whatever a backup holds must restore.
 */
const BACKUP_PATH =
  /^(satchel\.db|models\.yaml|packs\/[^/]+\/((people|groups)\/[^/]+\/)?(pack\.db|USER\.md|MEMORY\.md|files\/.+)|installed-packs\/[^/]+\/.+|media\/files\/.+)$/su;

/** Whether `name` is a path a satchel backup may hold. */
export function isBackupPath(name: string): boolean {
  return BACKUP_PATH.test(name) && unsafeArchivePath(name) === undefined;
}

/** Reads a manifest; throws when it is not one satchel wrote (or a newer one). */
export function parseManifest(text: string): BackupManifest {
  let value: Partial<BackupManifest>;
  try {
    value = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw new Error(`${MANIFEST_NAME} is not JSON`);
  }
  if (value?.format !== MANIFEST_FORMAT || !Array.isArray(value.files))
    throw new Error(`${MANIFEST_NAME} is not a satchel backup manifest`);
  if (typeof value.version !== 'number' || value.version > MANIFEST_VERSION)
    throw new Error(
      `this backup was written by a newer satchel (format ${value.version}); update satchel first`,
    );
  const seen = new Set<string>();
  for (const file of value.files) {
    const ok =
      typeof file?.path === 'string' &&
      isBackupPath(file.path) &&
      !seen.has(file.path) &&
      Number.isSafeInteger(file.size) &&
      file.size >= 0 &&
      /^[0-9a-f]{64}$/.test(String(file.sha256));
    if (!ok) throw new Error(`${MANIFEST_NAME} lists a file satchel would not write`);
    seen.add(file.path);
  }
  return value as BackupManifest;
}
