import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { AbortedError } from '../core/errors.ts';
import type { PackStorage } from '../packs/storage.ts';
import { defineTool, type Tool, ToolError } from './tool.ts';

const DEFAULT_MAX_ROWS = 200;
const DEFAULT_TIMEOUT_MS = 3000;
/** Long text cells are cut to this many characters. */
const MAX_CELL_CHARS = 500;
/** Rows stop being added once the answer would pass this many characters. */
const MAX_OUTPUT_CHARS = 16_000;
/** The runner's answer is small by construction; anything bigger is a fault. */
const MAX_CHILD_OUTPUT_CHARS = 1_000_000;

const ALLOWED_FIRST_KEYWORDS = new Set(['SELECT', 'WITH', 'VALUES']);

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

interface QueryResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
  cellsCut: boolean;
}

/**
 * The query runner. It runs in a separate `node` process (not a worker thread): a worker
 * cannot be stopped while SQLite is busy in native code (an aggregate over a runaway
 * recursive CTE never returns to JavaScript, and the stuck thread even blocks process exit),
 * whereas a process can always be killed. CommonJS, no TypeScript, so it runs the same under
 * tsx, vitest and plain node. It reads one JSON request on stdin and writes one JSON answer.
 */
const RUNNER_SOURCE = `
'use strict';
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  let answer;
  try {
    answer = run(JSON.parse(input));
  } catch (error) {
    answer = { error: String((error && error.message) || error) };
  }
  process.stdout.write(JSON.stringify(answer));
});

function run(req) {
  const Database = require(req.modulePath);
  const db = new Database(req.dbFile, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  const stmt = db.prepare(req.sql);
  if (!stmt.reader || !stmt.readonly)
    throw new Error('only read-only queries (SELECT, WITH, VALUES) are allowed');
  const columns = stmt.columns().map((c) => c.name);
  stmt.raw(true);
  const rows = [];
  let truncated = false;
  let cellsCut = false;
  let size = JSON.stringify(columns).length + 120;
  const cell = (value) => {
    if (typeof value === 'string' && value.length > req.maxCellChars) {
      cellsCut = true;
      return value.slice(0, req.maxCellChars) + '… [' + (value.length - req.maxCellChars) + ' more characters]';
    }
    if (Buffer.isBuffer(value)) return '<blob, ' + value.length + ' bytes>';
    if (typeof value === 'bigint') return value.toString();
    return value;
  };
  for (const raw of stmt.iterate(...req.params)) {
    if (rows.length >= req.maxRows) { truncated = true; break; }
    const row = raw.map(cell);
    size += JSON.stringify(row).length + 1;
    if (size > req.maxOutputChars) { truncated = true; break; }
    rows.push(row);
  }
  db.close();
  return { columns, rows, truncated, cellsCut };
}
`;

/**
 * `db_query`: one read-only SQL query on the pack's own database. The query runs in a child
 * process that opens only `storage.dbFile`, read-only and with `query_only`; only a single
 * SELECT / WITH / VALUES statement that SQLite reports as a read-only reader is run (so no
 * ATTACH, PRAGMA or writes), and it is killed after `timeoutMs` or when the turn is aborted.
 */
export function createDbQueryTool(storage: PackStorage, options: DbQueryOptions = {}): Tool {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  return defineTool({
    name: 'db_query',
    description: `Run ONE read-only SQL query (SELECT, WITH or VALUES) on this pack's own SQLite database and get JSON {columns, rows, rowCount, truncated}. Use ? placeholders with "params". At most ${maxRows} rows; long text is cut to ${MAX_CELL_CHARS} characters. List the tables with: SELECT name, sql FROM sqlite_master WHERE type = 'table'. Use db_write to change data.`,
    schema,
    async run({ sql, params }, signal) {
      checkSql(sql);
      const result = await runQuery(
        {
          modulePath,
          dbFile: storage.dbFile,
          sql,
          params: (params ?? []).map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p)),
          maxRows,
          maxCellChars: MAX_CELL_CHARS,
          maxOutputChars: MAX_OUTPUT_CHARS,
        },
        timeoutMs,
        signal,
      );
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

/** Refuses anything but one SELECT / WITH / VALUES statement before a process is started. */
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

interface RunnerRequest {
  modulePath: string;
  dbFile: string;
  sql: string;
  params: (string | number | null)[];
  maxRows: number;
  maxCellChars: number;
  maxOutputChars: number;
}

function runQuery(
  request: RunnerRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new AbortedError());
      return;
    }
    const child = spawn(process.execPath, ['--input-type=commonjs', '-e', RUNNER_SOURCE], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {},
      windowsHide: true,
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      fn();
    };
    const onAbort = () =>
      finish(() => reject(signal.reason instanceof Error ? signal.reason : new AbortedError()));
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ToolError(
              `query took longer than ${Number((timeoutMs / 1000).toFixed(2))} s and was stopped`,
            ),
          ),
        ),
      timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > MAX_CHILD_OUTPUT_CHARS)
        finish(() => reject(new Error('db_query runner produced too much output')));
    });
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on('error', (error) => finish(() => reject(error)));
    child.on('close', (code, killedBy) => {
      finish(() => {
        let answer: (Partial<QueryResult> & { error?: string }) | undefined;
        try {
          answer = JSON.parse(stdout) as Partial<QueryResult> & { error?: string };
        } catch {
          reject(
            new Error(
              `db_query runner failed (exit ${code ?? killedBy}): ${stderr.trim().slice(0, 500)}`,
            ),
          );
          return;
        }
        if (typeof answer.error === 'string') reject(new ToolError(answer.error));
        else
          resolve({
            columns: answer.columns ?? [],
            rows: answer.rows ?? [],
            truncated: answer.truncated ?? false,
            cellsCut: answer.cellsCut ?? false,
          });
      });
    });
    child.stdin.on('error', () => {
      // The runner died before reading its request; 'close' reports it.
    });
    child.stdin.end(JSON.stringify(request));
  });
}
