import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectPack, loadPack, type Pack } from '../../src/packs/loader.ts';
import type { PackError } from '../../src/packs/problems.ts';
import { createPackRegistry } from '../../src/packs/registry.ts';
import { openPackStorage } from '../../src/packs/storage.ts';
import { validatePack, validationReport } from '../../src/packs/validate.ts';
import { Database } from '../../src/store/sqlite.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-migrations-');

/** A pack "garden" with one owned table, `plants`, and the given migrations. */
function gardenPack(root: string, migrations: Record<string, string> = {}): string {
  const dir = path.join(root, 'garden');
  mkdirSync(path.join(dir, 'skills', 'water'), { recursive: true });
  mkdirSync(path.join(dir, 'migrations'), { recursive: true });
  writeFileSync(
    path.join(dir, 'pack.yml'),
    'name: garden\nversion: 1.0.0\ndisplay_name: Garden\ndescription: Plants.\nskills: [water]\nschema:\n  owned_tables: [plants]\ntools: [db_write]\n',
  );
  writeFileSync(
    path.join(dir, 'skills', 'water', 'SKILL.md'),
    '---\nname: water\ndescription: Water the plants.\ncommand: true\n---\nWater them.\n',
  );
  writeFileSync(
    path.join(dir, 'schema.sql'),
    'CREATE TABLE IF NOT EXISTS plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n',
  );
  addMigrations(dir, migrations);
  return dir;
}

function addMigrations(dir: string, migrations: Record<string, string>): void {
  for (const [file, sql] of Object.entries(migrations))
    writeFileSync(path.join(dir, 'migrations', file), sql);
}

const M1 = {
  '0001_add_room.sql': "ALTER TABLE plants ADD COLUMN room TEXT NOT NULL DEFAULT 'hall';\n",
};
const M2 = {
  '0002_add_watered.sql':
    "ALTER TABLE plants ADD COLUMN watered_on TEXT;\nUPDATE plants SET watered_on = '2026-01-01';\n",
};
/** Works on an empty table (validate passes) but not on the rows below: two plants named "Fern". */
const M3_BREAKS_ON_DATA = {
  '0003_unique_names.sql':
    'UPDATE plants SET name = upper(name);\nCREATE UNIQUE INDEX plants_name ON plants (name);\n',
};

const rowsOf = (dbFile: string) => {
  const db = new Database(dbFile, { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }),
      rows: db.prepare('SELECT * FROM plants ORDER BY id').all(),
    };
  } finally {
    db.close();
  }
};

/** Opens the pack's storage once (a start), plants rows, and closes it. */
function startWith(home: string, pack: Pack, plant: string[] = []): string {
  const storage = openPackStorage(home, pack);
  for (const name of plant) storage.db.prepare('INSERT INTO plants (name) VALUES (?)').run(name);
  storage.close();
  return storage.dbFile;
}

describe('packs that grow', () => {
  it('applies schema.sql and every migration to a new database, in order', () => {
    const dir = gardenPack(temp(), { ...M1, ...M2 });
    const dbFile = startWith(temp(), loadPack(dir), ['Fern']);
    expect(rowsOf(dbFile)).toEqual({
      version: 2,
      rows: [{ id: 1, name: 'Fern', room: 'hall', watered_on: null }],
    });
  });

  it('upgrades a database made with 0001 only to 0002, keeping its rows', () => {
    const root = temp();
    const home = temp();
    const dir = gardenPack(root, M1);
    const dbFile = startWith(home, loadPack(dir), ['Fern', 'Basil']);
    expect(rowsOf(dbFile).version).toBe(1);

    addMigrations(dir, M2);
    startWith(home, loadPack(dir));
    expect(rowsOf(dbFile)).toEqual({
      version: 2,
      rows: [
        { id: 1, name: 'Fern', room: 'hall', watered_on: '2026-01-01' },
        { id: 2, name: 'Basil', room: 'hall', watered_on: '2026-01-01' },
      ],
    });
    // A third start has nothing to apply and changes nothing.
    startWith(home, loadPack(dir));
    expect(rowsOf(dbFile).rows).toHaveLength(2);
  });

  it('skips the pack when 0003 fails on its data, with the file and the error, and leaves the data as it was', () => {
    const home = temp();
    const dir = gardenPack(temp(), { ...M1, ...M2 });
    const dbFile = startWith(home, loadPack(dir), ['Fern', 'fern', 'Basil']);
    const before = rowsOf(dbFile);

    addMigrations(dir, M3_BREAKS_ON_DATA);
    const pack = loadPack(dir); // 0003 works on a fresh database, so the pack itself is valid
    const skipped: { pack: string; error: PackError }[] = [];
    const registry = createPackRegistry([pack], home, {
      onSkipped: (p, error) => skipped.push({ pack: p.name, error }),
    });
    expect(registry.list()).toEqual([]);
    registry.close();

    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.pack).toBe('garden');
    expect(skipped[0]!.error.message).toBe(
      `\`${path.join(dir, 'migrations', '0003_unique_names.sql')}\`: (migration) — UNIQUE constraint failed: plants.name; it was rolled back, and the pack's database stays at migration 0002`,
    );
    expect(rowsOf(dbFile)).toEqual(before);
    expect(before.version).toBe(2);
  });

  it('keeps serving the other packs when one is skipped', () => {
    const home = temp();
    const root = temp();
    const dir = gardenPack(root, M1);
    startWith(home, loadPack(dir), ['Fern', 'fern']);
    addMigrations(dir, M3_BREAKS_ON_DATA);
    addMigrations(dir, M2);
    const other = path.join(temp(), 'garden');
    gardenPack(path.dirname(other));
    const renamed = loadPack(other);
    const healthy = { ...renamed, name: 'orchard', displayName: 'Orchard' };
    const skipped: string[] = [];
    const registry = createPackRegistry([loadPack(dir), healthy], home, {
      onSkipped: (p) => skipped.push(p.name),
    });
    expect(registry.list().map((p) => p.name)).toEqual(['orchard']);
    expect(skipped).toEqual(['garden']);
    // 0002 had succeeded in its own transaction before 0003 failed.
    expect(rowsOf(path.join(home, 'packs', 'garden', 'pack.db')).version).toBe(2);
    registry.close();
  });

  it('refuses a database newer than the pack (a downgrade) without touching it', () => {
    const home = temp();
    const dir = gardenPack(temp(), { ...M1, ...M2 });
    const dbFile = startWith(home, loadPack(dir), ['Fern']);
    rmSync(path.join(dir, 'migrations', '0002_add_watered.sql'));
    const modified = statSync(dbFile).mtimeMs;
    expect(() => openPackStorage(home, loadPack(dir))).toThrow(
      /the database is at migration 0002, but this pack's newest migration is 0001/,
    );
    expect(statSync(dbFile).mtimeMs).toBe(modified);
  });
});

describe('pack validate and migrations', () => {
  it('applies them to a scratch database and reports the failing one', () => {
    const dir = gardenPack(temp(), {
      ...M1,
      '0002_broken.sql': 'ALTER TABLE trees ADD COLUMN x TEXT;\n',
    });
    expect(inspectPack(dir).problems).toEqual([
      {
        file: path.join(dir, 'migrations', '0002_broken.sql'),
        field: '(migration)',
        problem:
          "no such table: trees; it was rolled back, and the pack's database stays at migration 0001",
      },
    ]);
  });

  it('checks the names and numbering of the files, and a transaction inside one', () => {
    const dir = gardenPack(temp(), {
      ...M1,
      '0001_again.sql': 'SELECT 1;',
      '0004_later.sql': 'SELECT 1;',
      'add-more.sql': 'SELECT 1;',
    });
    writeFileSync(path.join(dir, 'migrations', 'NOTES.md'), 'ignored');
    const problems = inspectPack(dir).problems.map((p) => `${path.basename(p.file)}: ${p.problem}`);
    expect(problems).toEqual([
      'add-more.sql: a migration is named NNNN_name.sql, numbered from 0001 (e.g. 0001_add_notes.sql)',
      '0001_again.sql: number 0001 is used by another migration too',
      '0004_later.sql: expected 0003 here: migrations are numbered from 0001 without gaps',
    ]);

    const committing = gardenPack(temp(), { '0001_commit.sql': 'COMMIT;\nCREATE TABLE t (x);\n' });
    expect(inspectPack(committing).problems[0]?.problem).toMatch(
      /^it must not contain BEGIN, COMMIT, END or ROLLBACK/,
    );
  });

  it('an owned table may come from a migration', () => {
    const dir = gardenPack(temp(), {
      '0001_add_rooms.sql': 'CREATE TABLE rooms (id INTEGER PRIMARY KEY, name TEXT);\n',
    });
    const manifest = path.join(dir, 'pack.yml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('[plants]', '[plants, rooms]'));
    expect(inspectPack(dir).problems).toEqual([]);
  });

  it('tries pending migrations on a copy of the existing data, leaving the file untouched', () => {
    const home = temp();
    const dir = gardenPack(temp(), { ...M1, ...M2 });
    const dbFile = startWith(home, loadPack(dir), ['Fern', 'fern']);
    const bytes = readFileSync(dbFile);

    addMigrations(dir, M3_BREAKS_ON_DATA);
    const failing = validationReport(validatePack(dir, home));
    expect(failing.ok).toBe(false);
    expect(failing.text).toContain(
      `\`migrations/0003_unique_names.sql\`: (migration) — on ${dbFile}: UNIQUE constraint failed: plants.name`,
    );
    expect(readFileSync(dbFile).equals(bytes)).toBe(true);

    rmSync(path.join(dir, 'migrations', '0003_unique_names.sql'));
    addMigrations(dir, {
      '0003_unique_names.sql': 'CREATE UNIQUE INDEX plants_name ON plants (lower(name), id);\n',
    });
    const passing = validationReport(validatePack(dir, home));
    expect(passing.text).toContain(
      `data: ${dbFile} is at migration 0002; the next start applies up to 0003 (tried on a copy: ok)`,
    );
    expect(rowsOf(dbFile).version).toBe(2);
  });
});
