import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.ts';
import { loadPack } from '../../src/packs/loader.ts';
import { openPackStorage, type PackStorage } from '../../src/packs/storage.ts';
import { Database } from '../../src/store/sqlite.ts';
import { createDbQueryTool } from '../../src/tools/db-query.ts';
import { createDbWriteTool } from '../../src/tools/db-write.ts';
import { resultText, type Tool, ToolError } from '../../src/tools/tool.ts';
import { FakeClock } from '../support/fake-clock.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, done INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS secrets (id INTEGER PRIMARY KEY, v TEXT);
`;

/** Writes a minimal pack folder `<root>/<name>` and returns its path. */
function writePack(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'skills', 'basic'), { recursive: true });
  writeFileSync(
    path.join(dir, 'pack.yml'),
    [
      `name: ${name}`,
      'version: 1.0.0',
      `display_name: ${name.toUpperCase()} pack`,
      'description: A pack for the db tool tests.',
      'skills: [basic]',
      'schema:',
      '  owned_tables: [notes]',
      'tools: [db_query, db_write]',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'skills', 'basic', 'SKILL.md'),
    '---\nname: basic\ndescription: Does the basic thing.\n---\nUse the notes table.\n',
  );
  writeFileSync(path.join(dir, 'schema.sql'), SCHEMA);
  return dir;
}

let root: string;
let home: string;
let storage: PackStorage;
let other: PackStorage;
let coreFile: string;
let query: Tool;
let write: Tool;
const signal = new AbortController().signal;
/** 10:30 on Saturday 31 January 2026 in Auckland (+13): still Friday in UTC. */
const clock = new FakeClock(Date.UTC(2026, 0, 30, 21, 30, 0));
const dates = { clock, timezone: 'Pacific/Auckland' };

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'satchel-db-tools-'));
  home = path.join(root, 'home');
  const packsDir = path.join(root, 'packs');
  const pack = loadPack(writePack(packsDir, 'mine'));
  expect(pack.manifest.schema.owned_tables).toEqual(['notes']);
  storage = openPackStorage(home, pack);
  other = openPackStorage(home, loadPack(writePack(packsDir, 'other')));
  other.db.prepare('INSERT INTO notes (body) VALUES (?)').run('other pack note');
  coreFile = path.join(home, 'satchel.db');
  const core = new Database(coreFile);
  core.exec(
    "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('core user');",
  );
  core.close();
  query = createDbQueryTool(storage, dates);
  write = createDbWriteTool(storage, pack.manifest.schema.owned_tables, dates);
});

afterAll(() => {
  storage?.close();
  other?.close();
  rmSync(root, { recursive: true, force: true });
});

beforeEach(() => {
  storage.db.exec("DELETE FROM notes; DELETE FROM secrets; INSERT INTO secrets (v) VALUES ('s1');");
});

const run = async (tool: Tool, args: unknown) =>
  JSON.parse(resultText(await tool.run(tool.schema.parse(args), signal))) as Record<
    string,
    unknown
  >;

async function toolError(tool: Tool, args: unknown, s = signal): Promise<string> {
  try {
    await tool.run(tool.schema.parse(args), s);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as ToolError).message;
  }
  throw new Error(`expected a ToolError for ${JSON.stringify(args)}`);
}

const rows = (sql: string) => storage.db.prepare(sql).all();

/** Everything every db, the pack's, the other pack's and the core one, holds. */
function snapshot() {
  const core = new Database(coreFile, { readonly: true });
  try {
    return {
      notes: rows('SELECT * FROM notes ORDER BY id'),
      secrets: rows('SELECT * FROM secrets ORDER BY id'),
      tables: rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
      other: other.db.prepare('SELECT * FROM notes').all(),
      core: core.prepare('SELECT * FROM users').all(),
    };
  } finally {
    core.close();
  }
}

describe('db_write', () => {
  it('inserts, updates and deletes, visibly to db_query', async () => {
    expect(
      await run(write, { action: 'insert', table: 'notes', values: { body: 'milk' } }),
    ).toEqual({ inserted: 1, id: expect.any(Number) });
    const second = await run(write, {
      action: 'insert',
      table: 'notes',
      values: { body: 'eggs', done: true },
    });
    expect(second.inserted).toBe(1);

    let seen = await run(query, { sql: 'SELECT body, done FROM notes ORDER BY id' });
    expect(seen).toMatchObject({
      columns: ['body', 'done'],
      rows: [
        ['milk', 0],
        ['eggs', 1],
      ],
      rowCount: 2,
      truncated: false,
    });

    expect(
      await run(write, {
        action: 'update',
        table: 'notes',
        values: { done: 1 },
        where: { body: 'milk' },
      }),
    ).toEqual({ updated: 1 });
    expect(
      await run(write, { action: 'delete', table: 'notes', where: { id: second.id as number } }),
    ).toEqual({ deleted: 1 });

    seen = await run(query, { sql: 'SELECT body, done FROM notes WHERE done = ?', params: [true] });
    expect(seen.rows).toEqual([['milk', 1]]);
  });

  it('matches NULL with IS NULL in where', async () => {
    storage.db.exec("INSERT INTO notes (body, done) VALUES ('a', NULL), ('b', 0)");
    expect(
      await run(write, {
        action: 'update',
        table: 'notes',
        values: { done: 5 },
        where: { done: null },
      }),
    ).toEqual({ updated: 1 });
    expect(rows('SELECT body, done FROM notes ORDER BY id')).toEqual([
      { body: 'a', done: 5 },
      { body: 'b', done: 0 },
    ]);
  });

  it('refuses a table the pack does not own, changing nothing', async () => {
    const before = snapshot();
    for (const args of [
      { action: 'insert', table: 'secrets', values: { v: 'x' } },
      { action: 'update', table: 'secrets', values: { v: 'x' }, where: { id: 1 } },
      { action: 'delete', table: 'secrets', where: { id: 1 } },
    ])
      expect(await toolError(write, args)).toMatch(/not writable.*notes/);
    expect(snapshot()).toEqual(before);
  });

  it('refuses SQL-ish and schema-qualified table names', async () => {
    const before = snapshot();
    for (const table of [
      'notes; DROP TABLE notes',
      '"notes"',
      'main.notes',
      'NOTES',
      'sqlite_master',
    ])
      expect(await toolError(write, { action: 'insert', table, values: { body: 'x' } })).toMatch(
        /not writable/,
      );
    expect(snapshot()).toEqual(before);
  });

  it('names an unknown column and lists the valid ones', async () => {
    const message = await toolError(write, {
      action: 'insert',
      table: 'notes',
      values: { body: 'x', 'body"); DROP TABLE notes; --': 1 },
    });
    expect(message).toContain('unknown column "body"); DROP TABLE notes; --"');
    expect(message).toContain('id, body, done');
    expect(
      await toolError(write, { action: 'delete', table: 'notes', where: { nope: 1 } }),
    ).toMatch(/unknown column "nope".*id, body, done/);
    expect(rows('SELECT * FROM notes')).toEqual([]);
  });

  it('requires values for insert/update and a where for update/delete', async () => {
    storage.db.exec("INSERT INTO notes (body) VALUES ('keep'), ('also keep')");
    const before = snapshot();
    expect(await toolError(write, { action: 'insert', table: 'notes' })).toMatch(/values/);
    expect(await toolError(write, { action: 'insert', table: 'notes', values: {} })).toMatch(
      /values/,
    );
    expect(
      await toolError(write, { action: 'update', table: 'notes', values: { done: 1 } }),
    ).toMatch(/where/);
    expect(
      await toolError(write, { action: 'update', table: 'notes', values: { done: 1 }, where: {} }),
    ).toMatch(/where/);
    expect(await toolError(write, { action: 'update', table: 'notes', where: { id: 1 } })).toMatch(
      /values/,
    );
    expect(await toolError(write, { action: 'delete', table: 'notes' })).toMatch(/where/);
    expect(await toolError(write, { action: 'delete', table: 'notes', where: {} })).toMatch(
      /where/,
    );
    expect(snapshot()).toEqual(before);
  });

  it('reports constraint violations as tool errors', async () => {
    expect(
      await toolError(write, { action: 'insert', table: 'notes', values: { body: null } }),
    ).toMatch(/NOT NULL constraint failed: notes.body/);
    storage.db.exec("INSERT INTO notes (id, body) VALUES (7, 'seven')");
    expect(
      await toolError(write, { action: 'insert', table: 'notes', values: { id: 7, body: 'dup' } }),
    ).toMatch(/UNIQUE constraint failed/);
    expect(rows('SELECT id, body FROM notes')).toEqual([{ id: 7, body: 'seven' }]);
  });

  it('refuses a table that is owned but missing from the database', async () => {
    const tool = createDbWriteTool(storage, ['notes', 'ghost'], dates);
    expect(await toolError(tool, { action: 'insert', table: 'ghost', values: { a: 1 } })).toMatch(
      /does not exist/,
    );
  });
});

describe('db_query', () => {
  const otherDb = () => other.dbFile;

  it('refuses writes, DDL, PRAGMA, ATTACH and extensions, leaving every database intact', async () => {
    storage.db.exec("INSERT INTO notes (body) VALUES ('mine')");
    const before = snapshot();
    const attempts = [
      "INSERT INTO notes (body) VALUES ('x')",
      "UPDATE notes SET body = 'x'",
      'DELETE FROM notes',
      'DROP TABLE notes',
      'CREATE TABLE evil (x)',
      'CREATE TEMP TABLE evil (x)',
      'PRAGMA table_info(notes)',
      'PRAGMA query_only = OFF',
      `ATTACH '${otherDb()}' AS o`,
      `ATTACH DATABASE '${otherDb()}' AS o`,
      "ATTACH '../other/pack.db' AS o",
      "ATTACH '../../satchel.db' AS core",
      `  /* hi */ -- there\n ATTACH '${coreFile}' AS core`,
      'DETACH main',
      `WITH x AS (ATTACH '${otherDb()}' AS o) SELECT 1`,
      'WITH x AS (SELECT 1) DELETE FROM notes',
      "WITH x AS (SELECT 1) INSERT INTO notes (body) SELECT 'x' FROM x",
      'SELECT 1; DELETE FROM notes',
      'SELECT 1; SELECT 2',
      "SELECT load_extension('x')",
      "SELECT LOAD_EXTENSION('/tmp/x.so', 'init')",
      `VACUUM INTO '${path.join(root, 'copy.db')}'`,
      'REINDEX',
      'ANALYZE',
      'BEGIN',
      '-- only a comment',
      '',
    ];
    for (const sql of attempts) {
      const message = await toolError(query, { sql: sql || ' ' }).catch((e: Error) => {
        throw new Error(`${sql}: ${e.message}`);
      });
      expect(message, sql).toBeTruthy();
    }
    expect(snapshot()).toEqual(before);
  });

  it('cannot reach another schema: qualified names fail', async () => {
    for (const [sql, expected] of [
      ['SELECT * FROM other.notes', /no such table: other.notes/],
      ['SELECT * FROM "o"."notes"', /no such table: o.notes/],
      ['SELECT * FROM "other".x', /no such table/],
      ['SELECT * FROM "main"."x"', /no such table: main.x/],
      ['SELECT * FROM core.users', /no such table/],
      ["SELECT * FROM pragma_table_info('notes', 'o')", /unknown database 'o'/],
      ['SELECT * FROM "../other/pack.db".notes', /no such table/],
      ['SELECT * FROM x', /no such table: x/],
      ['SELECT nope FROM notes', /no such column: nope/],
    ] as const)
      expect(await toolError(query, { sql }), sql).toMatch(expected);
  });

  it('allows its own schema, pragma functions, comments and VALUES', async () => {
    storage.db.exec("INSERT INTO notes (body) VALUES ('one')");
    expect(await run(query, { sql: 'SELECT body FROM main.notes' })).toMatchObject({
      rows: [['one']],
    });
    expect(
      await run(query, { sql: "SELECT name FROM pragma_table_info('notes') ORDER BY cid" }),
    ).toMatchObject({ rows: [['id'], ['body'], ['done']] });
    expect(
      await run(query, { sql: '/* c */ -- d\n  values (1, ?, ?)', params: ['a', null] }),
    ).toMatchObject({ columns: ['column1', 'column2', 'column3'], rows: [[1, 'a', null]] });
    expect(
      await run(query, {
        sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c;',
      }),
    ).toMatchObject({ rows: [[1], [2], [3]], truncated: false });
  });

  it('reports SQLite errors as tool errors', async () => {
    expect(await toolError(query, { sql: 'SELECT FROM' })).toMatch(/syntax error/);
    expect(await toolError(query, { sql: 'SELECT ?', params: [] })).toMatch(/parameter/i);
  });

  it('truncates past maxRows and cuts long cells', async () => {
    const small = createDbQueryTool(storage, dates, { maxRows: 5 });
    const out = await run(small, {
      sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c',
    });
    expect(out).toMatchObject({ rows: [[1], [2], [3], [4], [5]], rowCount: 5, truncated: true });
    expect(out.note).toMatch(/first 5 rows/);

    const exact = await run(small, { sql: 'VALUES (1), (2), (3), (4), (5)' });
    expect(exact).toMatchObject({ rowCount: 5, truncated: false });

    const long = await run(query, { sql: "SELECT printf('%.2000c', 'a') AS s" });
    const cell = (long.rows as string[][])[0]?.[0] ?? '';
    expect(cell.startsWith('a'.repeat(500))).toBe(true);
    expect(cell).toContain('1500 more characters');
    expect(long.note).toMatch(/cut to 500/);
  });

  it('keeps the answer small', async () => {
    const text = resultText(
      await query.run(
        {
          sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, printf('%.400c', 'b') FROM c",
        },
        signal,
      ),
    );
    expect(text.length).toBeLessThan(17_000);
    expect(JSON.parse(text)).toMatchObject({ truncated: true });
  });

  it('stops a runaway query after the timeout', async () => {
    const quick = createDbQueryTool(storage, dates, { timeoutMs: 300 });
    const started = Date.now();
    const message = await toolError(quick, {
      sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c',
    });
    expect(message).toBe('query took longer than 0.3 s and was stopped');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('stops a runaway query when the turn is aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new AbortedError()), 200);
    await expect(
      query.run(
        {
          sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT max(x) FROM c',
        },
        controller.signal,
      ),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(Date.now() - started).toBeLessThan(2500);

    const aborted = new AbortController();
    aborted.abort();
    await expect(query.run({ sql: 'SELECT 1' }, aborted.signal)).rejects.toBeInstanceOf(Error);
  });
});

describe('date parameters (computed in the user time zone, from the injected clock)', () => {
  // 10:30 on Saturday 31 January in Auckland: Friday 30 January in UTC.
  const saturday = {
    now: '2026-01-30T21:30:00.000Z',
    today: '2026-01-31',
    yesterday: '2026-01-30',
    week_start: '2026-01-26',
    week_end: '2026-02-01',
    month_start: '2026-01-01',
  };
  const ALL =
    'SELECT :now AS now, :today AS today, :yesterday AS yesterday, :week_start AS week_start, :week_end AS week_end, :month_start AS month_start';

  it('fills :now, :today, :yesterday, :week_start, :week_end and :month_start in db_query', async () => {
    expect(await run(query, { sql: ALL })).toMatchObject({
      columns: Object.keys(saturday),
      rows: [Object.values(saturday)],
    });
    // With ? placeholders too, and as the clock moves: Sunday, then Monday of a new month.
    await run(write, { action: 'insert', table: 'notes', values: { body: 'milk' } });
    clock.advance(24 * 3_600_000);
    try {
      expect(
        await run(query, {
          sql: "SELECT body, :today AS today, date(:week_end, '+1 day') AS next_week FROM notes WHERE body = ?",
          params: ['milk'],
        }),
      ).toMatchObject({ rows: [['milk', '2026-02-01', '2026-02-02']] });
      clock.advance(24 * 3_600_000);
      expect(await run(query, { sql: ALL })).toMatchObject({
        rows: [
          [
            '2026-02-01T21:30:00.000Z',
            '2026-02-02',
            '2026-02-01',
            '2026-02-02',
            '2026-02-08',
            '2026-02-01',
          ],
        ],
      });
    } finally {
      clock.advance(-48 * 3_600_000);
    }
  });

  it('refuses a named parameter it was not given, naming the ones there are', async () => {
    expect(await toolError(query, { sql: "SELECT date(:tomorrow, '+1 day')" })).toBe(
      'the query uses :tomorrow, which has no value: the named parameters are :now, :today, :yesterday, :week_start, :week_end, :month_start (computed in the user\'s time zone); pass other values with ? placeholders and "params"',
    );
  });

  it('replaces a db_write value that is exactly a date parameter, in values and where', async () => {
    await run(write, {
      action: 'insert',
      table: 'notes',
      values: { body: ':today' },
    });
    await run(write, { action: 'insert', table: 'notes', values: { body: 'at :today, ok' } });
    expect(rows('SELECT body FROM notes ORDER BY id')).toEqual([
      { body: '2026-01-31' },
      { body: 'at :today, ok' },
    ]);
    expect(
      await run(write, {
        action: 'update',
        table: 'notes',
        values: { body: ':week_start' },
        where: { body: ':today' },
      }),
    ).toEqual({ updated: 1 });
    await run(write, { action: 'insert', table: 'notes', values: { body: ':now' } });
    expect(rows('SELECT body FROM notes ORDER BY id')).toEqual([
      { body: '2026-01-26' },
      { body: 'at :today, ok' },
      { body: '2026-01-30T21:30:00.000Z' },
    ]);
  });

  it('refuses a db_write value that names another parameter, writing nothing', async () => {
    expect(
      await toolError(write, { action: 'insert', table: 'notes', values: { body: ':tomorrow' } }),
    ).toBe(
      'the value of "body" is :tomorrow, which is not a date parameter: a value that is exactly one of :now, :today, :yesterday, :week_start, :week_end, :month_start is replaced by it; compute other dates with db_query (SELECT date(:today, \'+1 day\')) and write the result',
    );
    expect(rows('SELECT body FROM notes')).toEqual([]);
  });
});
