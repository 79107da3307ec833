import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.ts';
import type { QueryPoolOptions } from '../../src/packs/db-query-pool.ts';
import { loadPack, type Pack } from '../../src/packs/loader.ts';
import { openPackStorage, type PackStorage } from '../../src/packs/storage.ts';
import { createDbQueryTool } from '../../src/tools/db-query.ts';
import { resultText, type Tool, ToolError } from '../../src/tools/tool.ts';
import { fixtureArgs } from '../support/built.ts';
import { FakeClock } from '../support/fake-clock.ts';

/**
 * db_query's pool of warm children (src/packs/db-query-pool.ts): reuse, time limits, aborts,
 * caps on concurrency and memory, isolation between packs, and shutdown.
 */

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const repo = path.resolve(fixtures, '..', '..');
/** Never finishes on its own. */
const RUNAWAY =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
/** Takes tens of milliseconds, then answers [[300000]]. */
const SLOW =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT count(*) FROM c';
const idle = new AbortController().signal;
/** The date parameters' source: these tests do not read them. */
const dates = { clock: new FakeClock(), timezone: 'UTC' };

let root: string;
let alpha: Pack;
let beta: Pack;
const opened: PackStorage[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'satchel-db-query-'));
  alpha = loadPack(path.join(fixtures, 'packs', 'alpha'));
  beta = loadPack(path.join(fixtures, 'packs', 'beta'));
});

afterEach(async () => {
  for (const storage of opened.splice(0)) {
    storage.close();
    await storage.queries.exited();
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A pack's storage in a home of its own, closed after the test. */
function open(pack: Pack, queries: QueryPoolOptions = {}): PackStorage {
  const storage = openPackStorage(mkdtempSync(path.join(root, 'home-')), pack, { queries });
  opened.push(storage);
  return storage;
}

async function run(tool: Tool, sql: string, params?: unknown[], signal = idle) {
  const text = resultText(
    await tool.run(tool.schema.parse({ sql, ...(params ? { params } : {}) }), signal),
  );
  return JSON.parse(text) as { columns: string[]; rows: unknown[][]; truncated: boolean };
}

async function failure(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the query to fail');
}

/** Whether a process with this pid still exists. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('db_query pool', () => {
  it('answers from one warm child, reused across queries', async () => {
    const storage = open(alpha);
    storage.db.exec("INSERT INTO plants (name) VALUES ('fern'), ('cactus')");
    const tool = createDbQueryTool(storage, dates);

    expect(storage.queries.stats()).toMatchObject({ processes: 0, started: 0 });
    expect(await run(tool, 'SELECT name FROM plants ORDER BY id')).toMatchObject({
      columns: ['name'],
      rows: [['fern'], ['cactus']],
    });
    const [pid] = storage.queries.stats().pids;
    storage.db.exec("INSERT INTO plants (name) VALUES ('ivy')");
    expect(await run(tool, 'SELECT count(*) FROM plants')).toMatchObject({ rows: [[3]] });
    // A tool built for the next turn uses the same pool.
    expect(await run(createDbQueryTool(storage, dates), 'SELECT 1')).toMatchObject({ rows: [[1]] });

    expect(storage.queries.stats()).toMatchObject({ processes: 1, started: 1, pids: [pid] });
  });

  it('returns 64-bit integers exactly and binds whole numbers as integers', async () => {
    const storage = open(alpha);
    storage.db
      .prepare('INSERT INTO plants (id, name) VALUES (?, ?)')
      .run(9_007_199_254_740_993n, 'big');
    const tool = createDbQueryTool(storage, dates);

    const out = await run(tool, 'SELECT id, name, 7, 2.5, -9223372036854775808 FROM plants');
    expect(out.rows).toEqual([['9007199254740993', 'big', 7, 2.5, '-9223372036854775808']]);
    expect(
      (await run(tool, 'SELECT name FROM plants WHERE id = ?', ['9007199254740993'])).rows,
    ).toEqual([['big']]);
    expect((await run(tool, 'SELECT typeof(?), typeof(?)', [5, 5.5])).rows).toEqual([
      ['integer', 'real'],
    ]);
  });

  it('never shows the model a host path', async () => {
    const storage = open(alpha);
    const tool = createDbQueryTool(storage, dates);
    for (const sql of [
      'SELECT * FROM pragma_database_list',
      'select file from "PRAGMA_DATABASE_LIST"',
      'SELECT file FROM main.pragma_database_list',
      'SELECT 1 WHERE EXISTS (SELECT * FROM [pragma_database_list])',
    ]) {
      const error = await failure(run(tool, sql));
      expect(error, sql).toBeInstanceOf(ToolError);
      expect(error.message, sql).toMatch(/pragma_database_list is not available/);
    }

    // A path that reaches a value anyway (here: stored in a row) is replaced.
    storage.db.prepare('INSERT INTO plants (name) VALUES (?)').run(`copy of ${storage.dbFile}`);
    const text = resultText(await tool.run({ sql: 'SELECT name FROM plants' }, idle));
    expect(text).not.toContain(storage.dir);
    expect(JSON.parse(text).rows).toEqual([['copy of <pack folder>/pack.db']]);
  });

  it('stops a runaway query at its time limit, then serves the next one from a new child', async () => {
    const storage = open(alpha);
    // A query's limit counts the start of a new child too (tens of ms on a quiet machine,
    // more on a busy one): only the runaway, on the warm child, gets the short limit.
    const tool = createDbQueryTool(storage, dates, { timeoutMs: 20_000 });
    const short = createDbQueryTool(storage, dates, { timeoutMs: 300 });
    await run(tool, 'SELECT 1');
    const [first] = storage.queries.stats().pids;

    const error = await failure(run(short, RUNAWAY));
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toBe('query took longer than 0.3 s and was stopped');
    expect(exists(first!)).toBe(false);

    expect(await run(tool, 'SELECT 2')).toMatchObject({ rows: [[2]] });
    const stats = storage.queries.stats();
    expect(stats).toMatchObject({ started: 2, processes: 1, running: 0 });
    expect(stats.pids).not.toContain(first);
  });

  it('stops a running query when the turn is aborted', async () => {
    const storage = open(alpha);
    const tool = createDbQueryTool(storage, dates, { timeoutMs: 60_000 });
    const turn = new AbortController();
    const runaway = failure(run(tool, RUNAWAY, undefined, turn.signal));
    expect(storage.queries.stats().running).toBe(1);
    turn.abort(new AbortedError());

    expect(await runaway).toBeInstanceOf(AbortedError);
    expect(storage.queries.stats()).toMatchObject({ running: 0, processes: 0 });
    expect(await run(tool, 'SELECT 3')).toMatchObject({ rows: [[3]] });
  });

  it('keeps a runaway query on one pack from stalling another pack', async () => {
    const a = open(alpha);
    const b = open(beta);
    const stuck = new AbortController();
    const order: string[] = [];
    // The runaway's own 10 s limit only ends the test if B were stalled behind it.
    const runaway = run(
      createDbQueryTool(a, dates, { timeoutMs: 10_000 }),
      RUNAWAY,
      [],
      stuck.signal,
    )
      .catch(() => undefined)
      .finally(() => order.push('a'));
    const simple = run(createDbQueryTool(b, dates), 'SELECT 42').finally(() => order.push('b'));

    expect(await simple).toMatchObject({ rows: [[42]] });
    expect(a.queries.stats().running).toBe(1);
    stuck.abort(new AbortedError());
    await runaway;
    expect(order).toEqual(['b', 'a']);
  });

  it('runs at most maxConcurrent queries of a pack at once; the rest wait', async () => {
    const storage = open(alpha, { maxConcurrent: 2 });
    const tool = createDbQueryTool(storage, dates, { timeoutMs: 20_000 });
    const queries = Array.from({ length: 5 }, () => run(tool, SLOW));
    expect(storage.queries.stats()).toMatchObject({ running: 2, waiting: 3 });

    for (const out of await Promise.all(queries)) expect(out.rows).toEqual([[300_000]]);
    expect(storage.queries.stats()).toMatchObject({
      running: 0,
      waiting: 0,
      peakRunning: 2,
      started: 2,
    });
  });

  it('holds a waiting query to its own time limit and abort, and refuses past the queue cap', async () => {
    const storage = open(alpha, { maxConcurrent: 1, maxQueued: 2 });
    const stuck = new AbortController();
    const runaway = failure(
      run(createDbQueryTool(storage, dates, { timeoutMs: 10_000 }), RUNAWAY, [], stuck.signal),
    );
    const turn = new AbortController();
    const timesOut = failure(
      run(createDbQueryTool(storage, dates, { timeoutMs: 200 }), 'SELECT 1'),
    );
    const aborted = failure(run(createDbQueryTool(storage, dates), 'SELECT 1', [], turn.signal));
    const refused = await failure(run(createDbQueryTool(storage, dates), 'SELECT 1'));
    expect(refused.message).toMatch(/2 queries are already waiting/);

    turn.abort(new AbortedError());
    expect(await aborted).toBeInstanceOf(AbortedError);
    expect((await timesOut).message).toBe(
      'query waited 0.2 s for other queries on this pack to finish and was not run',
    );
    expect(storage.queries.stats()).toMatchObject({ running: 1, waiting: 0, started: 1 });
    stuck.abort(new AbortedError());
    expect(await runaway).toBeInstanceOf(AbortedError);
  });

  it('stops a query that needs too much memory, and recovers', async () => {
    const storage = open(alpha, { maxRssMb: 160 });
    const tool = createDbQueryTool(storage, dates, { timeoutMs: 20_000 });
    for (const sql of [
      'SELECT length(randomblob(400000000))',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) SELECT length(group_concat(hex(randomblob(1000000)))) FROM c',
    ]) {
      const error = await failure(run(tool, sql));
      expect(error, sql).toBeInstanceOf(ToolError);
      expect(error.message, sql).toMatch(/needed more than 160 MB of memory and was stopped/);
      expect(await run(tool, 'SELECT 4')).toMatchObject({ rows: [[4]] });
    }
  });

  it('replaces a child that died while idle', async () => {
    const storage = open(alpha);
    const tool = createDbQueryTool(storage, dates);
    await run(tool, 'SELECT 1');
    const [pid] = storage.queries.stats().pids;
    process.kill(pid!, 'SIGKILL');
    await storage.queries.exited();

    expect(await run(tool, 'SELECT 5')).toMatchObject({ rows: [[5]] });
    expect(storage.queries.stats().started).toBe(2);
  });

  it('stops every child when the storage closes, and refuses queries after', async () => {
    const storage = open(alpha, { maxConcurrent: 2 });
    const tool = createDbQueryTool(storage, dates, { timeoutMs: 60_000 });
    await run(tool, 'SELECT 1');
    const running = failure(run(tool, RUNAWAY)); // on the warm child
    const starting = failure(run(createDbQueryTool(storage, dates), 'SELECT 1')); // on a new one
    const pids = storage.queries.stats().pids;
    expect(pids).toHaveLength(2);

    storage.close();
    await storage.queries.exited();
    for (const pid of pids) expect(exists(pid)).toBe(false);
    expect((await running).message).toBe('the pack database was closed');
    expect((await starting).message).toBe('the pack database was closed');
    expect((await failure(run(tool, 'SELECT 1'))).message).toBe('the pack database is closed');
  });

  it.each(['close', 'idle'])('lets the process exit (%s)', async (mode) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        ...fixtureArgs('test/fixtures/db-query-exit.ts'),
        mkdtempSync(path.join(root, 'exit-')),
        mode,
      ],
      { cwd: repo, timeout: 15_000 },
    );
    const report = JSON.parse(stdout) as { pids: number[]; runaway?: string };
    expect(report.pids).toHaveLength(1);
    if (mode === 'close') {
      expect(report.runaway).toBe('the pack database was closed');
      expect(exists(report.pids[0]!)).toBe(false);
    }
  });
});
