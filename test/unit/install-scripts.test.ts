import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
type Deps = Record<string, string>;
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  dependencies?: Deps;
  devDependencies?: Deps;
  optionalDependencies?: Deps;
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { name?: string; hasInstallScript?: boolean } & typeof manifest>;
};

/** npm 12 runs a dependency's install script only when package.json approves it. */
describe('install scripts under npm 12', () => {
  // npm matches allowScripts on the registry name, so an alias (better-sqlite3-napi is
  // `npm:better-sqlite3@13`) is decided by its real name, which the lock keeps as `name`.
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(
      ([where, entry]) =>
        entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length),
    );

  it('approves the SQLite driver build, without which npm start cannot open a database', () => {
    expect(withScripts).toContain('better-sqlite3');
    expect(manifest.allowScripts?.['better-sqlite3']).toBe(true);
  });

  it('decides on every dependency that has an install script', () => {
    const undecided = [...new Set(withScripts)].filter(
      (name) => typeof manifest.allowScripts?.[name] !== 'boolean',
    );
    expect(undecided).toEqual([]);
  });
});

/** `npm install` rewrites a lock whose root entry disagrees with package.json. */
describe('package-lock.json', () => {
  const rootEntry = lock.packages[''] ?? {};

  it('lists the same dependencies as package.json, so npm install leaves it unchanged', () => {
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
      expect({ field, deps: rootEntry[field] ?? {} }).toEqual({
        field,
        deps: manifest[field] ?? {},
      });
    }
  });

  it('records the install script of the optional driver npm skips on Node 20', () => {
    // Written by an install on Node 22 or later; one on Node 20 keeps it as it is.
    expect(lock.packages['node_modules/better-sqlite3-napi']?.hasInstallScript).toBe(true);
  });
});
