import { z } from 'zod';
import { type Changed, changed } from '../core/changes.ts';
import {
  DATE_PARAM_LIST,
  DATE_PARAM_NAMES,
  type DateParamName,
  type DateParams,
  type DateSource,
  dateParams,
} from '../packs/date-params.ts';
import type { PackStorage } from '../packs/storage.ts';
import type { Database } from '../store/sqlite.ts';
import { defineTool, type Tool, ToolError } from './tool.ts';

type Value = string | number | boolean | null;
type Action = 'insert' | 'update' | 'delete';
type Entry = [column: string, value: Value];

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
 * A value (in `values` or `where`) that is exactly a date parameter's name, `:today`, is
 * that date (date-params.ts, from `dates` at the call); one that looks like another
 * parameter (`:tomorrow`) is refused, as the model meant a value it did not get.
 */
export function createDbWriteTool(
  storage: PackStorage,
  ownedTables: readonly string[],
  dates: DateSource,
): Tool {
  const owned = ownedTables.length > 0 ? ownedTables.join(', ') : '(none)';
  return defineTool({
    name: 'db_write',
    description: `Change rows in this pack's tables (${owned}). action "insert" needs "values" ({column: value}); "update" needs "values" and "where"; "delete" needs "where". "where" matches rows whose columns equal all the given values (null matches NULL). A value that is exactly :today, :yesterday, :week_start, :week_end or :month_start is that local date (YYYY-MM-DD), :now the time (UTC ISO 8601). Use db_query to read.`,
    schema,
    effect: 'write',
    async run({ action, table, values, where }) {
      const db = storage.db;
      if (!ownedTables.includes(table))
        throw new ToolError(
          ownedTables.length > 0
            ? `table "${table}" is not writable; this pack's tables are: ${owned}`
            : 'this pack has no writable tables',
        );
      const affinities = columnAffinities(db, table);
      const now = dateParams(dates.clock, dates.timezone);
      const set = withDates(Object.entries(values ?? {}), now);
      const match = withDates(Object.entries(where ?? {}), now);
      const columns = [...affinities.keys()];
      const unknown = [...set, ...match]
        .map(([column]) => column)
        .filter((column) => !affinities.has(column));
      if (unknown.length > 0)
        throw new ToolError(
          `unknown column${unknown.length > 1 ? 's' : ''} ${[...new Set(unknown)].map((c) => `"${c}"`).join(', ')} in table "${table}"; its columns are: ${columns.join(', ')}`,
        );
      checkShape(action, { set, match, values, where });

      const params = (entries: Entry[]) =>
        entries.map(([column, v]) => bind(v, column, affinities.get(column)!));
      try {
        return execute(db, action, table, {
          set,
          match,
          setParams: params(set),
          whereParams: params(match.filter(([, v]) => v !== null)),
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('SQLITE_'))
          throw new ToolError(`${action} on "${table}" failed: ${(error as Error).message}`);
        throw error;
      }
    },
  });
}

/** A value that is exactly `:name`: a date parameter, or a value the model did not get. */
const NAMED = /^:([A-Za-z_][A-Za-z0-9_]*)$/;
const isDateParam = (name: string): name is DateParamName =>
  (DATE_PARAM_NAMES as readonly string[]).includes(name);

/** The entries with each `:today` (and the other date parameters) replaced by its date. */
function withDates(entries: Entry[], dates: DateParams): Entry[] {
  return entries.map(([column, v]) => {
    const name = typeof v === 'string' ? NAMED.exec(v)?.[1] : undefined;
    if (name === undefined) return [column, v];
    if (!isDateParam(name))
      throw new ToolError(
        `the value of "${column}" is :${name}, which is not a date parameter: a value that is exactly one of ${DATE_PARAM_LIST} is replaced by it; compute other dates with db_query (SELECT date(:today, '+1 day')) and write the result`,
      );
    return [column, dates[name]];
  });
}

/** The table's columns and their type affinities; refuses a table that does not exist. */
function columnAffinities(db: Database, table: string): Map<string, Affinity> {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(table);
  if (!exists) throw new ToolError(`table "${table}" does not exist in the database`);
  const declared = db.prepare('SELECT name, type FROM pragma_table_info(?)').all(table) as {
    name: string;
    type: string;
  }[];
  return new Map(declared.map((c) => [c.name, affinityOf(c.type)]));
}

function checkShape(
  action: Action,
  args: { set: Entry[]; match: Entry[]; values: unknown; where: unknown },
): void {
  if (action === 'insert') {
    if (args.set.length === 0)
      throw new ToolError('insert needs "values" with at least one column');
    if (args.where !== undefined) throw new ToolError('insert takes "values", not "where"');
    return;
  }
  if (action === 'update' && args.set.length === 0)
    throw new ToolError('update needs "values" with at least one column to change');
  if (action === 'delete' && args.values !== undefined)
    throw new ToolError('delete takes "where", not "values"');
  if (args.match.length === 0)
    throw new ToolError(
      `${action} needs a non-empty "where" (changing every row at once is not allowed)`,
    );
}

/** Runs the statement; the result is the JSON text the model reads, with the rows changed. */
function execute(
  db: Database,
  action: Action,
  table: string,
  q: { set: Entry[]; match: Entry[]; setParams: Param[]; whereParams: Param[] },
): Changed {
  const rows = (count: number) => ({ kind: 'rows' as const, action, count });
  const whereSql = q.match
    .map(([column, v]) => (v === null ? `${quote(column)} IS NULL` : `${quote(column)} = ?`))
    .join(' AND ');
  if (action === 'insert') {
    const sql = `INSERT INTO ${quote(table)} (${q.set.map(([c]) => quote(c)).join(', ')}) VALUES (${q.set.map(() => '?').join(', ')})`;
    // Safe integers: a rowid beyond 2^53 is reported digit for digit, not rounded.
    const info = db
      .prepare(sql)
      .safeIntegers(true)
      .run(...q.setParams);
    return changed(
      `{"inserted":${info.changes},"id":${String(info.lastInsertRowid)}}`,
      rows(info.changes),
    );
  }
  if (action === 'update') {
    const sql = `UPDATE ${quote(table)} SET ${q.set.map(([c]) => `${quote(c)} = ?`).join(', ')} WHERE ${whereSql}`;
    const info = db.prepare(sql).run(...q.setParams, ...q.whereParams);
    return changed(JSON.stringify({ updated: info.changes }), rows(info.changes));
  }
  const info = db.prepare(`DELETE FROM ${quote(table)} WHERE ${whereSql}`).run(...q.whereParams);
  return changed(JSON.stringify({ deleted: info.changes }), rows(info.changes));
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** A column's type affinity, from its declared type (SQLite's rules, "Datatypes" §3.1). */
type Affinity = 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';
type Param = string | number | bigint | null;

function affinityOf(declaredType: string): Affinity {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return 'INTEGER';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'TEXT';
  if (type === '' || type.includes('BLOB')) return 'BLOB';
  if (/REAL|FLOA|DOUB/.test(type)) return 'REAL';
  return 'NUMERIC';
}

/**
 * The parameter for a value. better-sqlite3 binds every JS number as REAL, which a TEXT
 * column stores as "12345.0"; whole numbers are bound as 64-bit integers (BigInt) instead,
 * booleans as 1 and 0. A whole number beyond 2^53 was already rounded when the arguments
 * were parsed from JSON, so it is refused (except for a REAL column); the model can pass
 * the exact digits as a string, which SQLite stores as an integer in an INTEGER column.
 */
function bind(v: Value, column: string, affinity: Affinity): Param {
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v !== 'number' || !Number.isInteger(v)) return v;
  if (Number.isSafeInteger(v)) return BigInt(v);
  if (affinity === 'REAL') return v;
  throw new ToolError(
    `the number given for "${column}" is beyond 2^53 (9007199254740992), so it cannot arrive exactly as a JSON number; pass its digits as a string instead`,
  );
}
