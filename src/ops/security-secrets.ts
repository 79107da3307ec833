import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { hasSecretShape } from '../core/redact.ts';
import { Database } from '../store/sqlite.ts';
import type { Check } from './check.ts';
import { pass } from './check.ts';

/**
 * Tables of satchel.db not scanned: the conversation itself (a token the user pasted stays
 * in what they wrote, SPEC §9) and its search index (FTS5 keeps copies in shadow tables).
 */
const CONVERSATION = /^(messages|messages_search(_\w+)?)$/;

/** Where secret-shaped text was found: `table.column` and how many values. */
interface Finding {
  file: string;
  column: string;
  count: number;
}

/**
 * Secret-shaped strings (bot tokens, API keys, Bearer credentials; see core/redact.ts) kept
 * in the databases: satchel.db beside the conversation, and every pack's pack.db. Read
 * only; the values themselves are never shown.
 */
export function checkStoredSecrets(home: string): Check {
  const files = [path.join(home, 'satchel.db'), ...packDatabases(home)].filter((f) =>
    existsSync(f),
  );
  const findings = files.flatMap((file) =>
    scan(file, path.basename(file) === 'satchel.db' ? CONVERSATION : undefined),
  );
  if (findings.length === 0)
    return pass(`stored secrets: none found in ${files.length} database(s)`);
  const total = findings.reduce((n, f) => n + f.count, 0);
  return {
    status: 'warn',
    title: `stored secrets: ${total} secret-shaped value(s) in the databases (anyone with a copy or a backup can use them)`,
    detail: findings.map(
      (f) =>
        `${path.relative(home, f.file)}: ${f.column} (${f.count} value${f.count === 1 ? '' : 's'})`,
    ),
    fix: 'Revoke those keys or tokens where they were issued, then delete or edit the rows (`db_write` in a pack, or sqlite3 on a stopped satchel).',
  };
}

function packDatabases(home: string): string[] {
  const packs = path.join(home, 'packs');
  if (!existsSync(packs)) return [];
  return readdirSync(packs)
    .sort()
    .map((name) => path.join(packs, name, 'pack.db'));
}

/** Every text value of every table (but `skip`'s) in `file`, tested for a secret's shape. */
function scan(file: string, skip: RegExp | undefined): Finding[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    const findings: Finding[] = [];
    for (const table of tables.filter((t) => !skip?.test(t))) {
      const columns = db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string }[];
      for (const { name } of columns) {
        const values = db
          .prepare(
            `SELECT ${quote(name)} FROM ${quote(table)} WHERE typeof(${quote(name)}) = 'text'`,
          )
          .pluck()
          .iterate() as IterableIterator<string>;
        let count = 0;
        for (const value of values) if (hasSecretShape(value)) count++;
        if (count > 0) findings.push({ file, column: `${table}.${name}`, count });
      }
    }
    return findings;
  } finally {
    db.close();
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
