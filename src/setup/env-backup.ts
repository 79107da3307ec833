import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BACKUPS_FOLDER } from '../backup/backups-folder.ts';
import { fileStamp } from '../backup/stamp.ts';

/**
 * Copies the `.env` setup is about to replace into `SATCHEL_HOME/backups/` (made 0700), as
 * `env-<date>` (another file's name keeps its name: `other.env-<date>`), readable by its owner
 * only, and returns that path. Never beside the file, where git would see a copy of its keys.
 */
export function keepEnvBackup(file: string, home: string, now: Date): string {
  const folder = path.join(home, BACKUPS_FOLDER);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const base = path.join(folder, `${path.basename(file).replace(/^\./, '')}-${fileStamp(now)}`);
  let target = base;
  for (let n = 2; existsSync(target); n++) target = `${base}-${n}`;
  // Made 0600 whatever the old file's mode was ('wx': a name taken meanwhile is never reused).
  writeFileSync(target, readFileSync(file), { mode: 0o600, flag: 'wx' });
  return target;
}
