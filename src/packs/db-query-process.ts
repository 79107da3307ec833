import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../core/errors.ts';

/** One query as the child runs it; the limits keep its answer small by construction. */
export interface QueryRequest {
  sql: string;
  params: (string | number | null)[];
  /** Values for the statement's named parameters (`:today`), by name; unused ones are ignored. */
  named: Record<string, string>;
  maxRows: number;
  maxCellChars: number;
  maxOutputChars: number;
}

export interface QueryResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
  cellsCut: boolean;
}

export interface QueryProcessOptions {
  /** The better-sqlite3 entry point the child requires. */
  modulePath: string;
  dbFile: string;
  /** Host paths the child replaces in every answer (the pack's folder, and its real path). */
  hide: string[];
  /** V8 heap cap of the child (`--max-old-space-size`). */
  maxHeapMb: number;
  /** Resident memory cap of the child while a query runs; past it the child is killed. */
  maxRssMb: number;
}

/**
 * A warm child process (db-query-child.cjs) holding one read-only connection to a pack
 * database. It answers one query at a time. `kill` is the only way to stop a query: it ends
 * the process with SIGKILL, which works even while SQLite is busy in native code. An idle
 * process does not keep the parent's event loop alive.
 */
export interface QueryProcess {
  readonly pid: number | undefined;
  /** Whether the process has not exited (and was not killed). */
  readonly alive: boolean;
  /** Resolves once the child has opened the database; rejects with a ToolError if it could not. */
  readonly ready: Promise<void>;
  /** Runs a query; an SQLite error rejects with a ToolError and leaves the process usable. */
  query(request: QueryRequest): Promise<QueryResult>;
  kill(): void;
  /** Resolves once the process has exited and its pipes are closed. */
  readonly exited: Promise<void>;
}

const CHILD_FILE = fileURLToPath(new URL('./db-query-child.cjs', import.meta.url));
/** Written to stderr by the child's watchdog just before it kills the child. */
const MEMORY_MARKER = 'satchel-db-query: memory limit';
const V8_OOM = /heap out of memory|Reached heap limit/;

type ChildMessage =
  | { type: 'ready' }
  | { type: 'fatal'; error: string }
  | ({ type: 'result'; id: number } & QueryResult)
  | { type: 'error'; id: number; error: string };

interface Pending {
  id: number;
  resolve(result: QueryResult): void;
  reject(error: Error): void;
}

export function startQueryProcess(options: QueryProcessOptions): QueryProcess {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${options.maxHeapMb}`,
      CHILD_FILE,
      JSON.stringify({
        modulePath: options.modulePath,
        dbFile: options.dbFile,
        hide: options.hide,
        maxRssBytes: options.maxRssMb * 1024 * 1024,
      }),
    ],
    // No environment: the child needs none, and must not see the bot's secrets.
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {}, windowsHide: true },
  );
  let stderr = '';
  let alive = true;
  let killed = false;
  let nextId = 1;
  let pending: Pending | undefined;
  let onReady: { resolve(): void; reject(error: Error): void } | undefined;

  const ready = new Promise<void>((resolve, reject) => {
    onReady = { resolve, reject };
  });
  ready.catch(() => {}); // A caller that never awaits it must not see an unhandled rejection.
  // 'close' (not 'exit'): it comes after stderr has been read to the end, so the reason the
  // child wrote just before dying is known when its failure is classified. It also comes
  // when the process could not be spawned at all.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  child.on('message', (message: ChildMessage) => {
    if (message.type === 'ready') {
      hold(false);
      onReady?.resolve();
    } else if (message.type === 'fatal') onReady?.reject(new ToolError(message.error));
    else if (pending && message.id === pending.id) {
      const { resolve, reject } = pending;
      pending = undefined;
      hold(false);
      if (message.type === 'error') reject(new ToolError(message.error));
      else
        resolve({
          columns: message.columns,
          rows: message.rows,
          truncated: message.truncated,
          cellsCut: message.cellsCut,
        });
    }
  });
  child.on('error', (error) => onExit(error));
  child.on('close', (code, signal) => onExit(exitError(code, signal)));

  function onExit(error: Error): void {
    alive = false;
    onReady?.reject(error);
    if (pending) {
      const { reject } = pending;
      pending = undefined;
      reject(error);
    }
  }

  function exitError(code: number | null, signal: NodeJS.Signals | null): ToolError {
    if (stderr.includes(MEMORY_MARKER) || V8_OOM.test(stderr))
      return new ToolError(
        `the query needed more than ${options.maxRssMb} MB of memory and was stopped; select fewer or shorter values`,
      );
    if (killed) return new ToolError('the query was stopped');
    return new ToolError(
      `the query runner stopped unexpectedly (${signal ?? `exit code ${code}`}); try a simpler query`,
    );
  }

  /** Keeps the parent alive while a query is in flight, and only then. */
  function hold(busy: boolean): void {
    if (busy) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
  hold(true); // until the child is ready
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  return {
    get pid() {
      return child.pid;
    },
    get alive() {
      return alive && !killed;
    },
    ready,
    exited,
    query(request) {
      return new Promise((resolve, reject) => {
        if (!alive || killed) return reject(new ToolError('the query runner has stopped'));
        if (pending) return reject(new Error('a db_query process runs one query at a time'));
        pending = { id: nextId++, resolve, reject };
        hold(true);
        child.send({ ...request, id: pending.id });
      });
    },
    kill() {
      if (!alive || killed) return;
      killed = true;
      child.kill('SIGKILL');
    },
  };
}
