import { realpathSync } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { AbortedError, ToolError } from '../core/errors.ts';
import { sqliteDriver } from '../store/sqlite.ts';
import {
  type QueryProcess,
  type QueryRequest,
  type QueryResult,
  startQueryProcess,
} from './db-query-process.ts';

/**
 * The db_query runners of one pack database: a small pool of warm child processes.
 *
 * Why processes and not worker threads (measured on Node 20 with better-sqlite3 12):
 * - `worker.terminate()` cannot stop a worker spinning inside SQLite. A worker running
 *   `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c`
 *   never returns to JavaScript: terminate() was still pending after 5 s, and
 *   `process.exit()` then hung too, since Node joins the worker's thread on exit.
 * - better-sqlite3 exposes no interrupt, and its SQLite is built with
 *   OMIT_PROGRESS_CALLBACK (no progress handler) and DEFAULT_MEMSTATUS=0, which makes
 *   `PRAGMA hard_heap_limit` a no-op: a `group_concat(hex(randomblob(1000000)))` query grew
 *   the process to 578 MB with a 64 MB hard_heap_limit set. Worker `resourceLimits` cap only
 *   the V8 heap, not SQLite's own allocations.
 * So the only sure stop is killing a process, and the only sure memory cap is watching a
 * process's resident memory (from a thread of its own: the main one may be stuck in SQLite). Each child is spawned once and reused (a warm query costs an
 * IPC round trip, not a 40–80 ms process start); a child is SIGKILLed and forgotten when its
 * query passes the time limit, the turn is aborted or the pool closes, and the next query
 * starts a fresh one. Each child's V8 heap is capped by `--max-old-space-size`, and its
 * watchdog thread kills it when a query pushes its resident memory past `maxRssMb` (it
 * looks every 10 ms; with the 256 MB default, hungry queries were killed at 257–272 MB).
 *
 * Concurrency is keyed (one pool per pack), bounded (`maxConcurrent` queries run, at most
 * `maxQueued` wait; more are refused) and cancellable (a waiting query still honours its
 * time limit and the turn's signal). Idle children exit after `idleMs`.
 */
export interface QueryPool {
  /** Runs one query within `timeoutMs` (waiting included); rejects with a ToolError or the abort reason. */
  run(
    request: QueryRequest,
    limits: { timeoutMs: number; signal: AbortSignal },
  ): Promise<QueryResult>;
  stats(): QueryPoolStats;
  /** Stops every child and refuses new queries; waiting and running ones are rejected. */
  close(): void;
  /** Resolves once every child started so far has exited (after `close`, soon). Never rejects. */
  exited(): Promise<void>;
}

export interface QueryPoolStats {
  /** Queries running on a child now. */
  running: number;
  /** Queries waiting for a free slot. */
  waiting: number;
  /** The most queries that ever ran at once. */
  peakRunning: number;
  /** Children alive now (busy or idle). */
  processes: number;
  /** Children ever started. */
  started: number;
  /** The pids of the children alive now. */
  pids: number[];
}

export interface QueryPoolOptions {
  /** Queries of this pack running at once. Default 2. */
  maxConcurrent?: number;
  /** Queries that may wait for a slot; more are refused at once. Default 16. */
  maxQueued?: number;
  /** V8 heap cap of each child, in MB. Default 64. */
  maxHeapMb?: number;
  /** Resident memory cap of each child while it runs a query, in MB. Default 256. */
  maxRssMb?: number;
  /** An idle child exits after this long. Default 120 000. */
  idleMs?: number;
}

/** Why a query's stop signal fired, when it was not the turn's abort. */
class Deadline extends Error {}
class Closing extends Error {}

export function createQueryPool(dbFile: string, options: QueryPoolOptions = {}): QueryPool {
  const maxConcurrent = options.maxConcurrent ?? 2;
  const maxQueued = options.maxQueued ?? 16;
  const idleMs = options.idleMs ?? 120_000;
  const processOptions = {
    modulePath: sqliteDriver.path,
    dbFile,
    hide: hiddenPaths(path.dirname(dbFile)),
    maxHeapMb: options.maxHeapMb ?? 64,
    maxRssMb: options.maxRssMb ?? 256,
  };
  const queue = new PQueue({ concurrency: maxConcurrent });
  const live = new Set<QueryProcess>();
  const idle: { proc: QueryProcess; timer: NodeJS.Timeout }[] = [];
  /** The stop controllers of the queries waiting or running, for `close`. */
  const active = new Set<AbortController>();
  let closed = false;
  let running = 0;
  let peakRunning = 0;
  let started = 0;

  /** An idle child, or a new one: at most `maxConcurrent` exist, as each serves one running query. */
  function take(): QueryProcess {
    for (let slot = idle.pop(); slot; slot = idle.pop()) {
      clearTimeout(slot.timer);
      if (slot.proc.alive) return slot.proc;
    }
    const proc = startQueryProcess(processOptions);
    started += 1;
    live.add(proc);
    void proc.exited.then(() => live.delete(proc));
    return proc;
  }

  function giveBack(proc: QueryProcess): void {
    if (!proc.alive || closed) {
      proc.kill();
      return;
    }
    const timer = setTimeout(() => {
      const at = idle.findIndex((slot) => slot.proc === proc);
      if (at >= 0) idle.splice(at, 1);
      proc.kill();
    }, idleMs);
    timer.unref();
    idle.push({ proc, timer });
  }

  /**
   * One query's stop signal: the turn's abort (its reason), the deadline or the pool closing.
   * A controller of our own rather than AbortSignal.any, so nothing long-lived collects
   * listeners query after query.
   */
  function stopFor(turn: AbortSignal, timeoutMs: number) {
    const stop = new AbortController();
    const onTurn = () =>
      stop.abort(turn.reason instanceof Error ? turn.reason : new AbortedError());
    const timer = setTimeout(() => stop.abort(new Deadline()), timeoutMs);
    turn.addEventListener('abort', onTurn, { once: true });
    if (turn.aborted) onTurn();
    active.add(stop);
    return {
      signal: stop.signal,
      dispose() {
        clearTimeout(timer);
        turn.removeEventListener('abort', onTurn);
        active.delete(stop);
      },
    };
  }

  async function execute(request: QueryRequest, stop: AbortSignal): Promise<QueryResult> {
    stop.throwIfAborted();
    const proc = take();
    running += 1;
    peakRunning = Math.max(peakRunning, running);
    const onStop = () => proc.kill();
    stop.addEventListener('abort', onStop, { once: true });
    try {
      await proc.ready;
      return await proc.query(request);
    } finally {
      stop.removeEventListener('abort', onStop);
      // A stopped or dead child keeps its slot until it is gone: never more than
      // `maxConcurrent` children, and a closed pool has none left when its queries settle.
      if (!proc.alive) await proc.exited;
      running -= 1;
      giveBack(proc);
    }
  }

  return {
    async run(request, { timeoutMs, signal }) {
      if (closed) throw new ToolError('the pack database is closed');
      if (queue.size >= maxQueued)
        throw new ToolError(
          `${queue.size} queries are already waiting on this pack's database; wait for their answers`,
        );
      const stop = stopFor(signal, timeoutMs);
      // The queue sees only the waiting part: once a query runs, stopping it means killing
      // its child, and its slot stays taken until the child is gone, so at most
      // `maxConcurrent` children ever exist.
      let began = false;
      const waiting = new AbortController();
      const stopWaiting = () => {
        if (!began) waiting.abort(stop.signal.reason);
      };
      stop.signal.addEventListener('abort', stopWaiting, { once: true });
      if (stop.signal.aborted) stopWaiting();
      try {
        return await queue.add(
          () => {
            began = true;
            return execute(request, stop.signal);
          },
          { signal: waiting.signal },
        );
      } catch (error) {
        if (!stop.signal.aborted) throw error;
        const reason: unknown = stop.signal.reason;
        if (reason instanceof Deadline) throw timeoutError(timeoutMs, began);
        if (reason instanceof Closing) throw new ToolError('the pack database was closed');
        throw reason;
      } finally {
        stop.signal.removeEventListener('abort', stopWaiting);
        stop.dispose();
      }
    },

    stats() {
      const alive = [...live].filter((p) => p.alive);
      return {
        running,
        waiting: queue.size,
        peakRunning,
        processes: alive.length,
        started,
        pids: alive.flatMap((p) => (p.pid === undefined ? [] : [p.pid])),
      };
    },

    close() {
      closed = true;
      for (const stop of active) stop.abort(new Closing());
      for (const slot of idle.splice(0)) clearTimeout(slot.timer);
      for (const proc of live) proc.kill();
    },

    async exited() {
      await Promise.all([...live].map((proc) => proc.exited));
    },
  };
}

function timeoutError(timeoutMs: number, began: boolean): ToolError {
  const seconds = Number((timeoutMs / 1000).toFixed(2));
  return new ToolError(
    began
      ? `query took longer than ${seconds} s and was stopped`
      : `query waited ${seconds} s for other queries on this pack to finish and was not run`,
  );
}

/** The pack folder as given and as resolved (symlinks), so either spelling is scrubbed. */
function hiddenPaths(dir: string): string[] {
  const paths = [path.resolve(dir)];
  try {
    paths.push(realpathSync(dir));
  } catch {
    // Not there yet: the child will fail to open the database and say so.
  }
  return paths;
}
