import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Database } from '../store/sqlite.ts';
import { readPackFile } from './pack-files.ts';
import { PackError, type PackProblem } from './problems.ts';

/** `migrations/NNNN_name.sql`: one step of the pack's schema, applied once per database. */
export interface Migration {
  version: number;
  file: string;
  sql: string;
}

/** schema.sql: "migration zero", re-applied at every start, so it must be idempotent. */
export interface BaseSchema {
  file: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d{4})_[A-Za-z0-9][\w.-]*\.sql$/;

/**
 * The pack's migrations in order, and what is wrong with the folder: a `.sql` file whose name
 * is not `NNNN_name.sql`, a number used twice, or a gap (0001, 0003: where is 0002?). Other
 * files (a README) are ignored.
 */
export function readMigrations(packDir: string): {
  migrations: Migration[];
  problems: PackProblem[];
} {
  const dir = path.join(packDir, 'migrations');
  if (!existsSync(dir)) return { migrations: [], problems: [] };
  const problems: PackProblem[] = [];
  const migrations: Migration[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith('.sql')) continue;
    const file = path.join(dir, entry);
    const match = MIGRATION_FILE.exec(entry);
    if (!match) {
      problems.push({
        file,
        field: '(file name)',
        problem: 'a migration is named NNNN_name.sql, numbered from 0001 (e.g. 0001_add_notes.sql)',
      });
      continue;
    }
    const sql = readPackFile(packDir, file, problems);
    if (sql !== undefined) migrations.push({ version: Number(match[1]), file, sql });
  }
  migrations.forEach((m, i) => {
    const expected = i + 1;
    if (m.version !== expected)
      problems.push({
        file: m.file,
        field: '(file name)',
        problem:
          m.version < expected
            ? `number ${pad(m.version)} is used by another migration too`
            : `expected ${pad(expected)} here: migrations are numbered from 0001 without gaps`,
      });
  });
  return { migrations, problems };
}

const pad = (n: number) => String(n).padStart(4, '0');

/** The last migration applied to `db` (`PRAGMA user_version`; 0 for none). */
export function migrationLevel(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** What `upgradeDatabase` needs of a pack (a loaded Pack has it). */
export interface DatabasePlan {
  dir: string;
  /** schema.sql ("migration zero"), if the pack has one. */
  schemaSql: string | undefined;
  migrations: readonly Migration[];
}

/** A migration ended satchel's transaction itself (COMMIT, END or ROLLBACK in the file). */
class EndedTransaction extends Error {}

/**
 * Brings a pack database up to date, as at every start: schema.sql first (migration zero,
 * idempotent), then each migration newer than `PRAGMA user_version`, in order, each in its
 * own transaction that also records its number. When one fails its transaction rolls back:
 * its changes are undone and `user_version` stays at the last migration that succeeded.
 * Throws a PackError naming the file and SQLite's error; the caller skips the pack.
 */
export function upgradeDatabase(db: Database, plan: DatabasePlan): { from: number; to: number } {
  const { schemaSql } = plan;
  if (schemaSql !== undefined) {
    try {
      // In a transaction too, so a schema.sql that fails on existing data changes nothing.
      db.transaction(() => db.exec(schemaSql))();
    } catch (error) {
      const file = path.join(plan.dir, 'schema.sql');
      throw new PackError([{ file, field: '(sql)', problem: messageOf(error) }]);
    }
  }
  const from = migrationLevel(db);
  const newest = plan.migrations.at(-1)?.version ?? 0;
  if (from > newest)
    throw new PackError([
      {
        file: path.join(plan.dir, 'migrations'),
        field: '(migrations)',
        problem: `the database is at migration ${pad(from)}, but this pack's newest migration is ${newest === 0 ? 'none' : pad(newest)} (was the pack downgraded, or a migration removed?); its data was left as it was`,
      },
    ]);
  for (const migration of plan.migrations)
    if (migration.version > from) applyMigration(db, migration);
  return { from, to: Math.max(from, newest) };
}

function applyMigration(db: Database, migration: Migration): void {
  try {
    db.transaction(() => {
      db.exec(migration.sql);
      if (!db.inTransaction) throw new EndedTransaction();
      db.pragma(`user_version = ${migration.version}`);
    })();
  } catch (error) {
    const problem =
      error instanceof EndedTransaction
        ? 'it must not contain BEGIN, COMMIT, END or ROLLBACK: satchel runs each migration in a transaction of its own, which this file ended early, so part of it may have been applied'
        : `${messageOf(error)}; it was rolled back, and the pack's database stays at migration ${pad(migrationLevel(db))}`;
    throw new PackError([{ file: migration.file, field: '(migration)', problem }]);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
