import { Database } from '../store/sqlite.ts';
import { type DatabasePlan, migrationLevel, upgradeDatabase } from './migrations.ts';
import { PackError, type PackProblem } from './problems.ts';

const AGAIN =
  ' (on the second start: schema.sql runs at every start, so each statement must be safe to apply again, e.g. CREATE TABLE IF NOT EXISTS)';

/**
 * Starts the pack twice on a fresh scratch database, as satchel would: schema.sql and every
 * migration, then schema.sql again. Returns the problems, and the tables that exist at the
 * end (for the `owned_tables` check); once both starts worked, `inspect` may read the
 * database as a start leaves it (the actions' statements are prepared against it).
 */
export function checkFreshDatabase(
  plan: DatabasePlan,
  inspect?: (db: Database, tables: Set<string>) => PackProblem[],
): {
  problems: PackProblem[];
  tables: Set<string>;
} {
  const db = new Database(':memory:');
  try {
    const problems = startTwice(db, plan);
    const tables = tablesOf(db);
    if (problems.length === 0 && inspect) problems.push(...inspect(db, tables));
    return { problems, tables };
  } finally {
    db.close();
  }
}

/**
 * Tries the pack's schema and pending migrations on an in-memory copy of an existing pack
 * database (`dbFile`): what the next start would do to the user's data. The file is only
 * read. (It is opened read-write all the same: SQLite cannot open a WAL database read-only
 * once its -shm file is gone, as it is after a clean stop.)
 */
export function checkExistingDatabase(
  dbFile: string,
  plan: DatabasePlan,
): { problems: PackProblem[]; from: number; to: number } {
  const source = new Database(dbFile, { fileMustExist: true });
  let image: Buffer;
  try {
    image = source.serialize();
  } finally {
    source.close();
  }
  // Bytes 18 and 19 of the header say "WAL" (2), which an in-memory database cannot use;
  // 1 is the rollback journal. The pages themselves are unchanged.
  image[18] = 1;
  image[19] = 1;
  const copy = new Database(image);
  try {
    const from = migrationLevel(copy);
    try {
      return { problems: [], ...upgradeDatabase(copy, plan) };
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      return { problems: error.problems, from, to: migrationLevel(copy) };
    }
  } finally {
    copy.close();
  }
}

function startTwice(db: Database, plan: DatabasePlan): PackProblem[] {
  for (const suffix of ['', AGAIN]) {
    try {
      upgradeDatabase(db, plan);
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      return error.problems.map((p) => ({ ...p, problem: p.problem + suffix }));
    }
  }
  return [];
}

function tablesOf(db: Database): Set<string> {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
  return new Set(rows.map((row) => (row as { name: string }).name));
}
