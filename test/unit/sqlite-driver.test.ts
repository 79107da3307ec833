import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseDriver, Database, sqliteDriver } from '../../src/store/sqlite.ts';

const both = (name: string) => `/modules/${name}/lib/index.js`;
const sourceOnly = (name: string) => (name === 'better-sqlite3' ? both(name) : undefined);
/** The choice of the driver `name`, loaded from where it is installed. */
const chosen = (name: string, napiMissing: boolean) => ({ name, path: both(name), napiMissing });

describe('the SQLite driver', () => {
  it('takes the Node-API build (better-sqlite3 13) where the runtime has Node-API 10', () => {
    expect(chooseDriver(10, both)).toEqual(chosen('better-sqlite3-napi', false));
  });

  it('keeps better-sqlite3 12 on Node 20 (Node-API 9), even when 13 is installed', () => {
    expect(chooseDriver(9, both)).toEqual(chosen('better-sqlite3', false));
  });

  it('falls back to 12 and says so when npm left the optional Node-API build out', () => {
    expect(chooseDriver(10, sourceOnly)).toEqual(chosen('better-sqlite3', true));
  });

  it('says to run npm install when no driver is installed', () => {
    expect(() => chooseDriver(10, () => undefined)).toThrow('run `npm install`');
  });

  it('is the one this Node should load, and it opens a database', () => {
    const napi = Number(process.versions.napi);
    expect(sqliteDriver.name).toBe(napi >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3');
    expect(sqliteDriver.version.split('.')[0]).toBe(napi >= 10 ? '13' : '12');
    const db = new Database(':memory:');
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });

  it('lists 13 as an optional dependency, so npm skips it on Node 20', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { optionalDependencies?: Record<string, string> };
    expect(manifest.optionalDependencies?.['better-sqlite3-napi']).toMatch(
      /^npm:better-sqlite3@\^13\./,
    );
  });
});
