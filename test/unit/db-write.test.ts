import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.ts';
import { loadPack } from '../../src/packs/loader.ts';
import { openPackStorage, type PackStorage } from '../../src/packs/storage.ts';
import { createDbWriteTool } from '../../src/tools/db-write.ts';
import { createToolRunner } from '../../src/tools/registry.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';

/** One column of each type affinity. */
const SCHEMA = `CREATE TABLE contacts (
  id INTEGER PRIMARY KEY,
  tg_id INTEGER,
  code TEXT,
  loose,
  score REAL,
  amount NUMERIC
);`;

let home: string;
let storage: PackStorage;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'satchel-db-write-'));
  const pack = { ...loadPack(path.join(FIXTURE_PACKS, 'alpha')), schemaSql: SCHEMA };
  storage = openPackStorage(home, pack);
});
afterEach(() => {
  storage.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs db_write on raw JSON arguments, as the model sends them; returns what it reads. */
function write(json: string): Promise<string> {
  const tools = createToolRunner(
    [createDbWriteTool(storage, ['contacts'], { clock: new FakeClock(), timezone: 'UTC' })],
    createLogger({ level: 'silent', secrets: [] }),
  );
  return tools.run({ id: 'c', name: 'db_write', arguments: json }, new AbortController().signal);
}

/** The rows as stored, integers as BigInt, with the storage class of each value. */
function stored() {
  return storage.db
    .prepare(
      `SELECT id, tg_id, code, typeof(code) AS code_type, loose, typeof(loose) AS loose_type,
              score, typeof(score) AS score_type, amount FROM contacts ORDER BY id`,
    )
    .safeIntegers(true)
    .all();
}

describe('db_write values', () => {
  it('stores whole numbers as integers: 12345 in a TEXT column is "12345", not "12345.0"', async () => {
    expect(
      await write(
        '{"action":"insert","table":"contacts","values":{"code":12345,"loose":7,"score":2,"amount":3,"tg_id":true}}',
      ),
    ).toBe('{"inserted":1,"id":1}');
    expect(stored()).toEqual([
      {
        id: 1n,
        tg_id: 1n,
        code: '12345',
        code_type: 'text',
        loose: 7n,
        loose_type: 'integer',
        score: 2,
        score_type: 'real',
        amount: 3n,
      },
    ]);
    await write('{"action":"insert","table":"contacts","values":{"code":1.5,"loose":0.25}}');
    expect(stored()[1]).toMatchObject({ code: '1.5', loose: 0.25, loose_type: 'real' });
  });

  it('matches a TEXT column holding "12345" when "where" gives the number 12345', async () => {
    storage.db.prepare("INSERT INTO contacts (code) VALUES ('12345')").run();
    expect(
      await write(
        '{"action":"update","table":"contacts","values":{"score":4.5},"where":{"code":12345}}',
      ),
    ).toBe('{"updated":1}');
    expect(
      await write('{"action":"delete","table":"contacts","where":{"code":12345,"score":4.5}}'),
    ).toBe('{"deleted":1}');
  });

  it('keeps integers beyond 2^53 exact when given as strings, and reports the new id exactly', async () => {
    expect(
      await write(
        '{"action":"insert","table":"contacts","values":{"id":"9007199254740993","tg_id":"9223372036854775807","code":"big"}}',
      ),
    ).toBe('{"inserted":1,"id":9007199254740993}');
    expect(
      await write(
        '{"action":"update","table":"contacts","values":{"code":"bigger"},"where":{"id":"9007199254740993","tg_id":"9223372036854775807"}}',
      ),
    ).toBe('{"updated":1}');
    expect(stored()).toEqual([
      expect.objectContaining({
        id: 9007199254740993n,
        tg_id: 9223372036854775807n,
        code: 'bigger',
      }),
    ]);
  });

  it('refuses a whole JSON number beyond 2^53, which JSON parsing has already rounded', async () => {
    for (const values of ['{"tg_id":9007199254740993}', '{"code":12345678901234567890}'])
      expect(await write(`{"action":"insert","table":"contacts","values":${values}}`)).toMatch(
        /^Error: the number given for "(tg_id|code)" is beyond 2\^53 .*pass its digits as a string/,
      );
    expect(
      await write('{"action":"delete","table":"contacts","where":{"id":9007199254740993}}'),
    ).toMatch(/^Error: the number given for "id" is beyond 2\^53/);
    expect(stored()).toEqual([]);
    // A REAL column takes a large number as the floating-point value it is.
    expect(await write('{"action":"insert","table":"contacts","values":{"score":1e20}}')).toBe(
      '{"inserted":1,"id":1}',
    );
    expect(stored()[0]).toMatchObject({ score: 1e20, score_type: 'real' });
  });
});
