import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';

/**
 * SATCHEL_HOME holds every conversation, the ledger and the packs' data: it is its owner's
 * alone. Folders are 0700 and files 0600 whatever the umask, set where satchel creates them.
 */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** Creates `dir` (and missing parents) readable by its owner only; an existing one is kept as is. */
export function makePrivateDir(dir: string): void {
  // mkdir's mode is filtered by the umask, so the folders it made are set again.
  const made = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  if (made === undefined) return;
  for (let folder = dir; ; folder = path.dirname(folder)) {
    chmodSync(folder, PRIVATE_DIR);
    if (folder === made || path.dirname(folder) === folder) break;
  }
}

/**
 * Makes the SQLite file `file` its owner's only, and its `-wal`, `-shm` and `-journal`
 * files where they exist (SQLite creates those with the database file's mode).
 */
export function makePrivateDatabase(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    if (existsSync(file + suffix)) chmodSync(file + suffix, PRIVATE_FILE);
}

/** One change `privateTree` made (or would make): the path, its mode before and after. */
export interface ModeChange {
  path: string;
  from: number;
  to: number;
  /**
   * Left as it is: a file with other names (hard links), which may lie outside this tree and
   * would change with it.
   */
  linked?: true;
}

/**
 * Takes every permission of other users (group and others) from the folders and files
 * under (and including) `root`: folders become 0700, files 0600 (0700 when executable);
 * links are left alone, never followed, and so is a file with other names (a hard link: its
 * other name may lie anywhere). With `apply: false` it only reports.
 */
export function privateTree(root: string, apply: boolean): ModeChange[] {
  const changes: ModeChange[] = [];
  const visit = (file: string) => {
    const stat = lstatSync(file);
    if (stat.isSymbolicLink()) return;
    const from = stat.mode & 0o777;
    if ((from & 0o077) !== 0) {
      // The owner's bits stay (an executable MCP server script stays executable).
      const to = (from & 0o700) | (stat.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE);
      if (!stat.isDirectory() && stat.nlink > 1)
        changes.push({ path: file, from, to, linked: true });
      else if (!apply || chmodHere(file, to, stat)) changes.push({ path: file, from, to });
    }
    if (stat.isDirectory()) for (const entry of readdirSync(file)) visit(path.join(file, entry));
  };
  if (existsSync(root)) visit(root);
  return changes;
}

/**
 * Sets `file`'s mode to `mode` only if it is still the file `seen` describes, and never
 * through a link: the file is opened without following one and changed by its descriptor, so
 * a name swapped for a link after it was looked at changes nothing. False: not changed.
 */
export function chmodHere(file: string, mode: number, seen: Stats): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    // A file its owner may not read (0244) cannot be opened: changed by name once it is
    // seen again to be the same file, not a link.
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') return false;
    const again = lstatSync(file, { throwIfNoEntry: false });
    if (!again || again.isSymbolicLink() || !same(again, seen)) return false;
    chmodSync(file, mode);
    return true;
  }
  try {
    if (!same(fstatSync(fd), seen)) return false;
    fchmodSync(fd, mode);
    return true;
  } finally {
    closeSync(fd);
  }
}

const same = (a: Stats, b: Stats) => a.ino === b.ino && a.dev === b.dev;

/** A mode as `ls` writes it in octal: `0644`. */
export function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}
