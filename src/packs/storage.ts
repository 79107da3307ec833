import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Home, homeFolders, OWNER_HOME } from '../core/home.ts';
import { makePrivateDatabase, makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';
import { Database } from '../store/sqlite.ts';
import { createQueryPool, type QueryPool, type QueryPoolOptions } from './db-query-pool.ts';
import type { Pack } from './loader.ts';
import { upgradeDatabase } from './migrations.ts';

/**
 * A pack's own state in one home (SPEC §19): the owner's under `SATCHEL_HOME/packs/<name>/`, a
 * person's under its `people/<person>/`, a group's under its `groups/<group>/`: its SQLite
 * file, USER.md, MEMORY.md and a `files/` workspace. Tools get only this object, so nothing
 * they can reach leads to another pack's data, another home's, or the core database.
 */
export interface PackStorage {
  readonly pack: string;
  /** Whose home this is. */
  readonly home: Home;
  readonly dir: string;
  readonly dbFile: string;
  readonly filesDir: string;
  /** The pack's database, writable (for db_write and the schema); db_query uses `queries`. */
  readonly db: Database;
  /** db_query's warm read-only runners for this database; they start on first use. */
  readonly queries: QueryPool;
  readNote(file: NoteFile): string;
  writeNote(file: NoteFile, text: string): void;
  /** Closes the database and stops the query runners. */
  close(): void;
}

export interface PackStorageOptions {
  /** Caps of db_query's runners (concurrency, memory, idle time). */
  queries?: QueryPoolOptions;
}

export type NoteFile = 'USER.md' | 'MEMORY.md';

/**
 * Opens (creating on first use) a pack's storage and brings its database up to date:
 * schema.sql (idempotent, every start), then its pending migrations, each in a transaction.
 * Throws a PackError (and opens nothing) when that fails; the database is left as it was
 * before the failing step.
 */
export function openPackStorage(
  root: string,
  pack: Pack,
  options: PackStorageOptions = {},
  home: Home = OWNER_HOME,
): PackStorage {
  const dir = path.join(root, 'packs', pack.name, ...homeFolders(home));
  const filesDir = path.join(dir, 'files');
  makePrivateDir(filesDir);
  const dbFile = path.join(dir, 'pack.db');
  const db = new Database(dbFile);
  try {
    makePrivateDatabase(dbFile);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    upgradeDatabase(db, pack);
  } catch (error) {
    db.close();
    throw error;
  }

  const notes: Record<NoteFile, string> = {
    'USER.md': path.join(dir, 'USER.md'),
    'MEMORY.md': path.join(dir, 'MEMORY.md'),
  };
  seed(notes['USER.md'], pack.templates.user ?? '# User\n');
  seed(notes['MEMORY.md'], pack.templates.memory ?? '# Memory\n');
  const queries = createQueryPool(dbFile, options.queries);
  const kept = keptFiles();

  return {
    pack: pack.name,
    home,
    dir,
    dbFile,
    filesDir,
    db,
    queries,
    readNote: (file) => kept.read(notes[file]),
    writeNote: (file, text) => {
      kept.forget(notes[file]);
      writeFileSync(notes[file], text);
    },
    close() {
      queries.close();
      if (db.open) db.close();
    },
  };
}

/** A file written this recently may change again within its timestamp's granularity. */
const SETTLED_MS = 2000;

/**
 * The notes go into every turn's prompt: their text is kept, and read again only when the
 * file changed (its size, inode or modification time: one `stat` instead of a read). The
 * owner may edit a note by hand at any time. A file changed in the last SETTLED_MS is read
 * every time, since a second write within the clock's granularity could keep its stamp.
 */
function keptFiles() {
  const kept = new Map<string, { stamp: string; text: string }>();
  return {
    read(file: string): string {
      const stat = statSync(file);
      const stamp = `${stat.size}:${stat.ino}:${stat.mtimeMs}`;
      const known = kept.get(file);
      if (known?.stamp === stamp) return known.text;
      const text = readFileSync(file, 'utf8');
      if (Date.now() - stat.mtimeMs > SETTLED_MS) kept.set(file, { stamp, text });
      else kept.delete(file);
      return text;
    },
    forget: (file: string) => kept.delete(file),
  };
}

/** Writes the template once; the user's notes are never overwritten. */
function seed(file: string, template: string): void {
  if (!existsSync(file)) writeFileSync(file, template, { mode: PRIVATE_FILE });
}
