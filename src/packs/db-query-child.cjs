'use strict';
/**
 * The db_query child: a warm `node` process that holds one read-only connection to a pack's
 * pack.db and answers queries over the IPC channel, one at a time. Why a process and not a
 * worker thread is explained in db-query-pool.ts. Plain CommonJS, so plain `node` runs it
 * under tsx, vitest and production alike, with no loader in the child.
 *
 * argv[2] is JSON: { modulePath, dbFile, hide: string[], maxRssBytes }.
 * Parent → child: { id, sql, params, named, maxRows, maxCellChars, maxOutputChars }.
 * Child → parent: { type: 'ready' } once, or { type: 'fatal', error } and exit;
 * then per query { type: 'result', id, columns, rows, truncated, cellsCut } or
 * { type: 'error', id, error }.
 *
 * A watchdog thread SIGKILLs this process when, during a query, its resident memory passes
 * `maxRssBytes` (it writes MEMORY_MARKER to stderr first, so the parent can say why), or
 * when the parent has gone away. It is a thread because the main thread may be stuck in
 * SQLite's native code, where no JavaScript of its own can run.
 */
const { Worker } = require('node:worker_threads');

const MEMORY_MARKER = 'satchel-db-query: memory limit';
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { setTimeout: sleep } = require('node:timers/promises');
const { busy, parentPid, maxRssBytes, marker } = workerData;
const die = () => process.kill(process.pid, 'SIGKILL');
(async () => {
  for (;;) {
    // Idle: sleep until a query starts (or 1 s passes). Busy: look every 10 ms.
    if (Atomics.load(busy, 0) === 0) await Atomics.waitAsync(busy, 0, 0, 1000).value;
    else await sleep(10);
    if (process.ppid !== parentPid) die();
    if (Atomics.load(busy, 0) === 1 && process.memoryUsage.rss() > maxRssBytes) {
      writeSync(2, marker + '\\n');
      die();
    }
  }
})();
`;

const config = JSON.parse(process.argv[2]);
const busy = new Int32Array(new SharedArrayBuffer(4));
new Worker(WATCHDOG_SOURCE, {
  eval: true,
  workerData: {
    busy,
    parentPid: process.ppid,
    maxRssBytes: config.maxRssBytes,
    marker: MEMORY_MARKER,
  },
});

// The parent's paths, longest first, so a path and its parent folder are both replaced.
const hidden = [...new Set(config.hide)].filter(Boolean).sort((a, b) => b.length - a.length);

let db;
try {
  const Database = require(config.modulePath);
  db = new Database(config.dbFile, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.defaultSafeIntegers(true);
} catch (error) {
  process.send({ type: 'fatal', error: scrub(messageOf(error)) }, () => process.exit(1));
}

if (db) {
  process.on('message', (request) => {
    Atomics.store(busy, 0, 1);
    Atomics.notify(busy, 0);
    let answer;
    try {
      answer = { type: 'result', id: request.id, ...run(request) };
    } catch (error) {
      answer = { type: 'error', id: request.id, error: scrub(messageOf(error)) };
    } finally {
      Atomics.store(busy, 0, 0);
    }
    process.send(answer);
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready' });
}

function run(request) {
  const stmt = db.prepare(request.sql);
  if (!stmt.reader || !stmt.readonly)
    throw new Error('only read-only queries (SELECT, WITH, VALUES) are allowed');
  const columns = stmt.columns().map((c) => scrub(c.name));
  stmt.raw(true);
  const rows = [];
  let truncated = false;
  let cellsCut = false;
  let size = JSON.stringify(columns).length + 120;
  const cell = (value) => {
    if (typeof value === 'bigint')
      return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
    if (Buffer.isBuffer(value)) return `<blob, ${value.length} bytes>`;
    if (typeof value !== 'string') return value;
    const text = scrub(value);
    if (text.length <= request.maxCellChars) return text;
    cellsCut = true;
    const rest = text.length - request.maxCellChars;
    return `${text.slice(0, request.maxCellChars)}… [${rest} more characters]`;
  };
  // The named values go last, as one object: better-sqlite3 binds `:name` from it and
  // ignores the names the statement does not use.
  for (const raw of stmt.iterate(...request.params.map(bindable), request.named)) {
    if (rows.length >= request.maxRows) {
      truncated = true;
      break;
    }
    const row = raw.map(cell);
    size += JSON.stringify(row).length + 1;
    if (size > request.maxOutputChars) {
      truncated = true;
      break;
    }
    rows.push(row);
  }
  return { columns, rows, truncated, cellsCut };
}

/** Whole numbers are bound as SQLite integers (better-sqlite3 binds every number as a real). */
function bindable(value) {
  return Number.isSafeInteger(value) ? BigInt(value) : value;
}

function scrub(text) {
  let out = text;
  for (const p of hidden) out = out.split(p).join('<pack folder>');
  return out;
}

function messageOf(error) {
  return String(error?.message || error);
}
