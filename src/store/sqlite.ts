import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver: better-sqlite3, in the build that suits the running Node.
 *
 * better-sqlite3 12 is compiled against the running Node. On Node 24 it aborts now and then
 * when the garbage collector finalizes a statement: Node 24's `ObjectWrap` removes a cleanup
 * hook in its destructor, and during garbage collection there is no current environment
 * ("Assertion failed: (env) != nullptr"). better-sqlite3 13 is a Node-API build with
 * prebuilt binaries and no such abort, but it needs Node-API 10 (Node 22.14 and later), so
 * Node 20 keeps 12. package.json lists 13 as the optional dependency `better-sqlite3-napi`,
 * which npm skips where its `engines` do not match.
 */
export interface SqliteDriver {
  /** The package name: `better-sqlite3-napi` (13) or `better-sqlite3` (12). */
  name: string;
  version: string;
  /** The entry point, for the processes that run `db_query` and for `require`. */
  path: string;
  /** The runtime asks for the Node-API build and it is not installed. */
  napiMissing: boolean;
}

const NAPI_BUILD = 'better-sqlite3-napi';
const SOURCE_BUILD = 'better-sqlite3';

/** Picks the driver for a runtime with Node-API `napi`; `resolve` finds a package's entry. */
export function chooseDriver(
  napi: number,
  resolve: (name: string) => string | undefined,
): Omit<SqliteDriver, 'version'> {
  const wantsNapi = napi >= 10;
  const napiPath = wantsNapi ? resolve(NAPI_BUILD) : undefined;
  if (napiPath) return { name: NAPI_BUILD, path: napiPath, napiMissing: false };
  const sourcePath = resolve(SOURCE_BUILD);
  if (!sourcePath) throw new Error(`the SQLite driver is not installed: run \`npm install\``);
  return { name: SOURCE_BUILD, path: sourcePath, napiMissing: wantsNapi };
}

const require = createRequire(import.meta.url);

function resolvePackage(name: string): string | undefined {
  try {
    return require.resolve(name);
  } catch {
    return undefined;
  }
}

const chosen = chooseDriver(Number(process.versions.napi), resolvePackage);

export const sqliteDriver: SqliteDriver = {
  ...chosen,
  version: (require(`${chosen.name}/package.json`) as { version: string }).version,
};

/** The better-sqlite3 `Database` class of the chosen driver. */
export const Database = require(sqliteDriver.path) as typeof BetterSqlite3;
export type Database = BetterSqlite3.Database;
