import { z } from 'zod';
import type { PackStorage } from '../packs/storage.ts';
import { defineTool, type Tool, ToolError } from './tool.ts';

type Value = string | number | boolean | null;

const value = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const schema = z.object({
  action: z.enum(['insert', 'update', 'delete']),
  table: z.string().min(1),
  values: z.record(z.string(), value).optional(),
  where: z.record(z.string(), value).optional(),
});

/**
 * `db_write`: structured insert / update / delete on the tables the pack owns, no raw SQL.
 * The table must be listed in `owned_tables` and exist; every column must exist; names are
 * then quoted and every value is bound as a parameter. Update and delete need a `where`
 * (equalities joined with AND), so a whole table cannot be changed or wiped at once.
 */
export function createDbWriteTool(storage: PackStorage, ownedTables: readonly string[]): Tool {
  const owned = ownedTables.length > 0 ? ownedTables.join(', ') : '(none)';
  return defineTool({
    name: 'db_write',
    description: `Change rows in this pack's tables (${owned}). action "insert" needs "values" ({column: value}); "update" needs "values" and "where"; "delete" needs "where". "where" matches rows whose columns equal all the given values (null matches NULL). Use db_query to read.`,
    schema,
    async run({ action, table, values, where }) {
      const db = storage.db;
      if (!ownedTables.includes(table))
        throw new ToolError(
          ownedTables.length > 0
            ? `table "${table}" is not writable; this pack's tables are: ${owned}`
            : 'this pack has no writable tables',
        );
      const exists = db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        .get(table);
      if (!exists) throw new ToolError(`table "${table}" does not exist in the database`);
      const columns = (
        db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]
      ).map((c) => c.name);

      const set = Object.entries(values ?? {});
      const match = Object.entries(where ?? {});
      const unknown = [...set, ...match]
        .map(([column]) => column)
        .filter((column) => !columns.includes(column));
      if (unknown.length > 0)
        throw new ToolError(
          `unknown column${unknown.length > 1 ? 's' : ''} ${[...new Set(unknown)].map((c) => `"${c}"`).join(', ')} in table "${table}"; its columns are: ${columns.join(', ')}`,
        );

      if (action === 'insert') {
        if (set.length === 0) throw new ToolError('insert needs "values" with at least one column');
        if (where !== undefined) throw new ToolError('insert takes "values", not "where"');
      } else {
        if (action === 'update' && set.length === 0)
          throw new ToolError('update needs "values" with at least one column to change');
        if (action === 'delete' && values !== undefined)
          throw new ToolError('delete takes "where", not "values"');
        if (match.length === 0)
          throw new ToolError(
            `${action} needs a non-empty "where" (changing every row at once is not allowed)`,
          );
      }

      const whereSql = match
        .map(([column, v]) => (v === null ? `${quote(column)} IS NULL` : `${quote(column)} = ?`))
        .join(' AND ');
      const whereParams = match.filter(([, v]) => v !== null).map(([, v]) => bind(v));

      try {
        if (action === 'insert') {
          const sql = `INSERT INTO ${quote(table)} (${set.map(([c]) => quote(c)).join(', ')}) VALUES (${set.map(() => '?').join(', ')})`;
          const info = db.prepare(sql).run(...set.map(([, v]) => bind(v)));
          return JSON.stringify({ inserted: info.changes, id: Number(info.lastInsertRowid) });
        }
        if (action === 'update') {
          const sql = `UPDATE ${quote(table)} SET ${set.map(([c]) => `${quote(c)} = ?`).join(', ')} WHERE ${whereSql}`;
          const info = db.prepare(sql).run(...set.map(([, v]) => bind(v)), ...whereParams);
          return JSON.stringify({ updated: info.changes });
        }
        const info = db
          .prepare(`DELETE FROM ${quote(table)} WHERE ${whereSql}`)
          .run(...whereParams);
        return JSON.stringify({ deleted: info.changes });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('SQLITE_'))
          throw new ToolError(`${action} on "${table}" failed: ${(error as Error).message}`);
        throw error;
      }
    },
  });
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function bind(v: Value): string | number | null {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}
