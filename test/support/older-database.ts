import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { MIGRATIONS } from '../../src/store/client.ts';
import { Database } from '../../src/store/sqlite.ts';

/**
 * A home whose database was written by the migrations before `tag` only ('0010': up to
 * 0009), as a satchel of that time left it, for a test of what a later migration does to
 * its rows. The directories come from `temp` (the file's `tempDirs`). Returns the home and
 * the open database to plant rows in: close it before the code under test opens the home.
 */
export function databaseBefore(
  tag: string,
  temp: () => string,
): { home: string; sqlite: Database } {
  const older = path.join(temp(), 'migrations');
  cpSync(MIGRATIONS, older, { recursive: true });
  const journal = path.join(older, 'meta', '_journal.json');
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries: { tag: string }[] };
  parsed.entries = parsed.entries.filter((e) => e.tag < tag);
  writeFileSync(journal, JSON.stringify(parsed));
  const home = temp();
  const sqlite = new Database(path.join(home, 'satchel.db'));
  migrate(drizzle(sqlite), { migrationsFolder: older });
  return { home, sqlite };
}
