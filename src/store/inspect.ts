import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS } from './client.ts';
import { Database } from './sqlite.ts';

/** The state of `<home>/satchel.db`, read without changing anything. */
export type CoreDbState =
  | { exists: false; homeWritable: boolean }
  | {
      exists: true;
      file: string;
      /** The database file with its WAL, in bytes. */
      bytes: number;
      journalMode: string;
      /** Migrations shipped with satchel, and the tags of those not applied yet. */
      migrations: number;
      pending: string[];
      /** `PRAGMA quick_check`: 'ok', or the first problem found. */
      integrity: string;
      writable: boolean;
    };

interface JournalEntry {
  when: number;
  tag: string;
}

/**
 * Reads the core database read-only (safe while the bot runs: WAL lets a reader in beside
 * the writer): its size, journal mode, pending migrations and a quick integrity check.
 */
export function inspectCoreDb(home: string): CoreDbState {
  const file = path.join(home, 'satchel.db');
  if (!existsSync(file)) return { exists: false, homeWritable: writable(home, true) };
  const journal = readJournal();
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const journalMode = String(db.pragma('journal_mode', { simple: true }));
    const applied = lastApplied(db);
    const integrity = String(db.pragma('quick_check', { simple: true }));
    return {
      exists: true,
      file,
      bytes: sizeOf(file) + sizeOf(`${file}-wal`),
      journalMode,
      migrations: journal.length,
      pending: journal.filter((m) => m.when > applied).map((m) => m.tag),
      integrity,
      writable: writable(file, false) && writable(home, true),
    };
  } finally {
    db.close();
  }
}

/** drizzle's migrator applies every migration newer than the newest row of its table. */
function lastApplied(db: Database): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  if (!table) return Number.NEGATIVE_INFINITY;
  const row = db.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as {
    at: number | null;
  };
  return row.at ?? Number.NEGATIVE_INFINITY;
}

function readJournal(): JournalEntry[] {
  const raw = readFileSync(path.join(MIGRATIONS, 'meta', '_journal.json'), 'utf8');
  return (JSON.parse(raw) as { entries: JournalEntry[] }).entries;
}

function sizeOf(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

/** Whether `target` can be written; a directory that does not exist yet counts when its parent can. */
function writable(target: string, directory: boolean): boolean {
  let at = target;
  while (directory && !existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
