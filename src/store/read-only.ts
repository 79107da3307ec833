import { existsSync } from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Db } from './client.ts';
import * as schema from './schema.ts';
import { Database } from './sqlite.ts';

export interface CoreReader {
  db: Db;
  file: string;
  close(): void;
}

/**
 * Opens `<home>/satchel.db` read-only, for the dashboard and `satchel usage`. Safe beside the
 * running bot: in WAL mode a reader sees the last committed state and never blocks the
 * writer. Applies no migration and writes nothing; returns undefined when there is no
 * database yet (satchel has never started with this home).
 */
export function openCoreReader(home: string): CoreReader | undefined {
  const file = path.join(home, 'satchel.db');
  if (!existsSync(file)) return undefined;
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  return {
    db: drizzle(sqlite, { schema }),
    file,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}
