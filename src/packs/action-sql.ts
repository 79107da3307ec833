import type { Database } from '../store/sqlite.ts';
import type { Params, ParamValue } from './actions.ts';

/** What SQLite binds for a parameter. */
export type Bound = string | number | bigint | null;

/**
 * The statements an action may run: a read or a row change. No schema change, PRAGMA,
 * ATTACH or transaction control (the action runs in a transaction of its own).
 */
const STATEMENT_START = /^(select|insert|update|delete|replace|with|values)\b/i;

/** Leading whitespace and comments, which SQLite skips before the first keyword. */
const LEADING = /^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$))*/;

/**
 * Why `sql` may not run as an action's statement on `db`, or undefined when it may: it must be
 * one statement of a kind above, that SQLite prepares against the pack's schema, whose named
 * parameters are all among `params`, and that writes no table outside `owned` (read from the
 * statement's own program: `OpenWrite` and `Clear` name the table's root page). Triggers are
 * the pack's own schema and may write what they like. `read: true` also refuses any write.
 * Nothing is run: the statement is prepared, and its program listed.
 */
export function statementProblem(
  db: Database,
  sql: string,
  params: Record<string, Bound>,
  rules: { owned: ReadonlySet<string>; read?: boolean },
): string | undefined {
  if (!STATEMENT_START.test(sql.replace(LEADING, '')))
    return 'must be one SELECT, INSERT, UPDATE, DELETE, REPLACE or WITH statement';
  let statement: ReturnType<Database['prepare']>;
  try {
    statement = db.prepare(sql);
    statement.bind(params);
  } catch (error) {
    return sqlProblem(error);
  }
  if (rules.read && !statement.readonly)
    return 'writes: the statements under sql write, the query only reads';
  const written = writtenTables(db, sql, params);
  if (written === 'virtual')
    return 'writes a virtual table: keep it in step with a trigger in schema.sql instead';
  if (written === 'elsewhere') return "writes outside the pack's database";
  const foreign = written.filter((t) => !rules.owned.has(t) && t !== 'sqlite_sequence');
  if (foreign.length > 0)
    return `writes ${foreign.map((t) => `"${t}"`).join(', ')}, which ${foreign.length > 1 ? 'are' : 'is'} not in schema.owned_tables`;
  return undefined;
}

/** An error of SQLite's or of the driver's (a missing parameter) as a short reason. */
function sqlProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const missing = /^Missing named parameter "(.+)"$/.exec(message);
  if (missing) return `uses :${missing[1]}, which is not one of the action's params`;
  if (/Too few parameter values|Too many parameter values/.test(message))
    return 'uses ? placeholders: name each parameter (:card) and list it in params';
  if (/more than one statement/.test(message))
    return 'holds more than one statement: give a list under sql, one statement each';
  return `is refused by SQLite: ${message}`;
}

/**
 * The tables the statement's own program opens for writing, by name; `virtual` when it writes
 * a virtual table, `elsewhere` when it writes another database (temp).
 */
function writtenTables(
  db: Database,
  sql: string,
  params: Record<string, Bound>,
): string[] | 'virtual' | 'elsewhere' {
  const listed = db.prepare(`EXPLAIN ${sql}`).all(params) as {
    addr: number;
    opcode: string;
    p1: number;
    p2: number;
    p3: number;
  }[];
  // EXPLAIN lists the statement's own program, then each trigger's (and foreign key action's),
  // numbered from 0 again: those are the schema's, and may write what they like.
  const end = listed.findIndex((op, i) => op.addr !== i);
  const program = end === -1 ? listed : listed.slice(0, end);
  const roots = new Map(
    (
      db.prepare('SELECT tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0').all() as {
        tbl_name: string;
        rootpage: number;
      }[]
    ).map((row) => [row.rootpage, row.tbl_name]),
  );
  const tables = new Set<string>();
  for (const op of program) {
    if (op.opcode === 'VUpdate') return 'virtual';
    const target =
      op.opcode === 'OpenWrite'
        ? { root: op.p2, db: op.p3 }
        : op.opcode === 'Clear'
          ? { root: op.p1, db: op.p2 }
          : undefined;
    if (!target) continue;
    if (target.db !== 0) return 'elsewhere';
    tables.add(roots.get(target.root) ?? `root page ${target.root}`);
  }
  return [...tables];
}

/**
 * A parameter as SQLite gets it: whole numbers as 64-bit integers (better-sqlite3 binds every
 * JS number as REAL, which a TEXT column stores as "3.0" and `typeof` calls real), booleans as
 * 1 and 0.
 */
export function bindValue(value: ParamValue): Bound {
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return value;
}

export const bindAll = (params: Params): Record<string, Bound> =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [name, bindValue(value)]));
