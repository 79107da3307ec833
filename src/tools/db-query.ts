import { z } from 'zod';
import { type DateSource, dateParams, explainQueryError } from '../packs/date-params.ts';
import type { PackStorage } from '../packs/storage.ts';
import { defineTool, type Tool, ToolError } from './tool.ts';

const DEFAULT_MAX_ROWS = 200;
const DEFAULT_TIMEOUT_MS = 3000;
/** Long text cells are cut to this many characters. */
const MAX_CELL_CHARS = 500;
/** Rows stop being added once the answer would pass this many characters. */
const MAX_OUTPUT_CHARS = 16_000;

const ALLOWED_FIRST_KEYWORDS = new Set(['SELECT', 'WITH', 'VALUES']);
/**
 * Pragma table-valued functions whose rows name files on the host. An identifier cannot be
 * split or escaped in SQL, so a plain search finds every spelling ("…", […], `…`, main.…).
 */
const FILE_PRAGMAS = /pragma_(database_list|temp_store_directory|data_store_directory)/i;

const param = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const schema = z.object({
  sql: z.string().min(1),
  params: z.array(param).optional(),
});

export interface DbQueryOptions {
  /** Rows returned at most (more are reported as truncated). Default 200. */
  maxRows?: number;
  /** The query is stopped after this long. Default 3000. */
  timeoutMs?: number;
}

/**
 * `db_query`: one read-only SQL query on the pack's own database. It runs in the pack's query
 * pool (`storage.queries`, see db-query-pool.ts): a warm child process that opened only
 * `storage.dbFile`, read-only and with `query_only`. Only a single SELECT / WITH / VALUES
 * statement that SQLite reports as a read-only reader is run (so no ATTACH, PRAGMA or
 * writes); it is stopped after `timeoutMs` (waiting for a free slot included) or when the
 * turn is aborted. The model never sees a host path: pragma functions that list files are
 * refused, and the child replaces the pack folder's path in every value it returns.
 * `:now`, `:today` and the other date parameters (date-params.ts) are filled in from `dates`
 * at the call; a named parameter that is not one of them is an error that lists them.
 */
export function createDbQueryTool(
  storage: PackStorage,
  dates: DateSource,
  options: DbQueryOptions = {},
): Tool {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return defineTool({
    name: 'db_query',
    description: `Run ONE read-only SQL query (SELECT, WITH or VALUES) on this pack's own SQLite database and get JSON {columns, rows, rowCount, truncated}. Use ? placeholders with "params". :today, :yesterday, :week_start (Monday), :week_end (Sunday) and :month_start are the user's local dates (YYYY-MM-DD), :now the time (UTC ISO 8601), filled in for you. At most ${maxRows} rows; long text is cut to ${MAX_CELL_CHARS} characters. List the tables with: SELECT name, sql FROM sqlite_master WHERE type = 'table'. Use db_write to change data.`,
    schema,
    effect: 'read',
    async run({ sql, params }, signal) {
      checkSql(sql);
      const request = {
        sql,
        params: (params ?? []).map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p)),
        named: { ...dateParams(dates.clock, dates.timezone) },
        maxRows,
        maxCellChars: MAX_CELL_CHARS,
        maxOutputChars: MAX_OUTPUT_CHARS,
      };
      const result = await storage.queries.run(request, { timeoutMs, signal }).catch((error) => {
        throw error instanceof ToolError ? new ToolError(explainQueryError(error.message)) : error;
      });
      const notes: string[] = [];
      if (result.truncated)
        notes.push(
          `only the first ${result.rows.length} rows are shown; narrow the query (WHERE, LIMIT) or aggregate`,
        );
      if (result.cellsCut)
        notes.push(
          `long text values were cut to ${MAX_CELL_CHARS} characters; use substr() to read the rest`,
        );
      return JSON.stringify({
        columns: result.columns,
        rows: result.rows,
        rowCount: result.rows.length,
        truncated: result.truncated,
        ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      });
    },
  });
}

/** Refuses anything but one SELECT / WITH / VALUES statement before it reaches the pool. */
function checkSql(sql: string): void {
  const keyword = firstKeyword(sql);
  if (!keyword) throw new ToolError('the query is empty');
  const upper = keyword.toUpperCase();
  if (!ALLOWED_FIRST_KEYWORDS.has(upper))
    throw new ToolError(
      `only read-only queries starting with SELECT, WITH or VALUES are allowed (got ${upper})${
        ['INSERT', 'UPDATE', 'DELETE', 'REPLACE'].includes(upper)
          ? '; use db_write to change data'
          : ''
      }`,
    );
  if (/load_extension/i.test(sql)) throw new ToolError('load_extension is not allowed');
  const revealing = FILE_PRAGMAS.exec(sql);
  if (revealing)
    throw new ToolError(
      `${revealing[0].toLowerCase()} is not available (it would show host file paths)`,
    );
}

/** The first word of the SQL after whitespace and comments, or '' if there is none. */
function firstKeyword(sql: string): string {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i] ?? '')) i++;
    if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else break;
  }
  return /^[A-Za-z_]+/.exec(sql.slice(i))?.[0] ?? '';
}
