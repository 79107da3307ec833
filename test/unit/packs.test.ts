import {
  cpSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadPack, loadPacks, PackError } from '../../src/packs/loader.ts';
import { describeIssue, manifestSchema } from '../../src/packs/manifest.ts';
import { packPromptSections } from '../../src/packs/prompt.ts';
import { openPackStorage } from '../../src/packs/storage.ts';
import { Database } from '../../src/store/sqlite.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const BUNDLED = fileURLToPath(new URL('../../packs', import.meta.url));
const temp = tempDirs('satchel-pack-unit-');

function copyFixture(name: string): string {
  const dir = path.join(temp(), name);
  cpSync(path.join(FIXTURE_PACKS, name), dir, { recursive: true });
  return dir;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PackError);
    return (error as PackError).problems.map(
      (p) => `${path.basename(p.file)}: ${p.field}: ${p.problem}`,
    );
  }
  throw new Error('expected a PackError');
}

describe('bundled packs', () => {
  const { packs, errors } = loadPacks([BUNDLED]);

  it('all load, each with a schema, three or more skills, templates and a schedule', () => {
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(packs.map((p) => p.name).sort()).toEqual(['assistant', 'habits', 'journal', 'vocab']);
    for (const pack of packs) {
      expect(pack.skills.length, pack.name).toBeGreaterThanOrEqual(3);
      expect(pack.manifest.schema.owned_tables.length, pack.name).toBeGreaterThan(0);
      expect(pack.manifest.cron.length, pack.name).toBeGreaterThan(0);
      expect(pack.templates.user && pack.templates.memory && pack.soul, pack.name).toBeTruthy();
      expect(
        pack.skills.some((s) => s.command),
        pack.name,
      ).toBe(true);
    }
  });

  it.each(['assistant', 'habits', 'journal', 'vocab'])(
    '%s: schema.sql applies to a fresh database twice',
    (name) => {
      const sql = readFileSync(path.join(BUNDLED, name, 'schema.sql'), 'utf8');
      const file = path.join(temp(), 'pack.db');
      for (let i = 0; i < 2; i++) {
        const db = new Database(file);
        db.exec(sql);
        db.close();
      }
      const db = new Database(file, { readonly: true });
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
        name: string;
      }[];
      db.close();
      const pack = packs.find((p) => p.name === name)!;
      for (const table of pack.manifest.schema.owned_tables)
        expect(tables.map((t) => t.name)).toContain(table);
    },
  );
});

describe('manifest schema', () => {
  const valid = {
    name: 'garden',
    version: '1.2.3',
    display_name: 'Garden',
    description: 'Plants.',
    skills: ['water', 'plant'],
    schema: { owned_tables: ['plants'] },
    tools: ['memory', 'db_query'],
    cron: [{ id: 'daily', schedule: '0 8 * * *', skill: 'water', enabled: true }],
    quota: { daily_tokens: 1000, daily_usd: 0.5 },
    model: 'openai:gpt-4.1-mini',
  };

  it('accepts a complete manifest and fills defaults', () => {
    expect(manifestSchema.parse(valid).cron[0]?.enabled).toBe(true);
    const minimal = manifestSchema.parse({
      name: 'x',
      version: '0.1.0',
      display_name: 'X',
      description: 'd',
      skills: ['a'],
    });
    expect(minimal).toMatchObject({
      tools: [],
      cron: [],
      schema: { owned_tables: [] },
      jobs_may_schedule: false,
    });
    const breeding = { ...valid, tools: ['schedule'], jobs_may_schedule: true };
    expect(manifestSchema.parse(breeding).jobs_may_schedule).toBe(true);
  });

  it.each([
    ['name', { name: 'Garden!' }, 'must match [a-z][a-z0-9-]*'],
    ['version', { version: 'one' }, 'must be a version like 1.0.0'],
    ['display_name', { display_name: '' }, ''],
    ['skills', { skills: [] }, ''],
    ['skills[0]', { skills: ['Water Plants'] }, 'must match [a-z][a-z0-9_-]*'],
    ['tools[0]', { tools: ['shell'] }, ''],
    [
      'cron[0].schedule',
      { cron: [{ id: 'a', schedule: 'every day', skill: 'water' }] },
      'must be a 5-field cron expression',
    ],
    [
      'cron[0].skill',
      { cron: [{ id: 'a', schedule: '0 8 * * *', skill: 'dig' }] },
      '"dig" is not one of this pack\'s skills',
    ],
    [
      'cron[1].id',
      {
        cron: [
          { id: 'a', schedule: '0 8 * * *', skill: 'water' },
          { id: 'a', schedule: '0 9 * * *', skill: 'water' },
        ],
      },
      'duplicate id "a"',
    ],
    ['quota.daily_usd', { quota: { daily_usd: -1 } }, ''],
    ['model', { model: 'gpt 4' }, 'must be "model" or "provider:model"'],
    ['jobs_may_schedule', { tools: ['schedule'], jobs_may_schedule: 'yes' }, 'expected boolean'],
    [
      'jobs_may_schedule',
      { jobs_may_schedule: true },
      'needs the `schedule` tool in `tools`: without it no run can create jobs',
    ],
    ['(top level)', { toolz: ['memory'] }, 'toolz'],
  ])('rejects a bad %s', (field, change, problem) => {
    const input = { ...valid, ...change };
    const result = manifestSchema.safeParse(input);
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((issue) => describeIssue(issue, input));
    expect(issues.map((i) => i.field)).toContain(field);
    expect(issues.find((i) => i.field === field)?.problem).toContain(problem);
  });
});

describe('pack loading', () => {
  it('names the file, field and problem of a broken pack', () => {
    const dir = copyFixture('alpha');
    writeFileSync(
      path.join(dir, 'skills', 'alpha_two', 'SKILL.md'),
      '---\nname: other\ndescription: x\n---\nbody',
    );
    expect(problemsOf(() => loadPack(dir))).toEqual([
      'SKILL.md: name: "other" must equal the folder name "alpha_two"',
    ]);

    rmSync(path.join(dir, 'skills', 'alpha_two', 'SKILL.md'));
    expect(problemsOf(() => loadPack(dir))).toEqual([
      'SKILL.md: (file): skill "alpha_two" has no SKILL.md',
    ]);
  });

  it('rejects a schema that is not safe to re-apply, or that misses an owned table', () => {
    const dir = copyFixture('alpha');
    writeFileSync(path.join(dir, 'schema.sql'), 'CREATE TABLE plants (id INTEGER);');
    expect(problemsOf(() => loadPack(dir))[0]).toMatch(
      /^schema\.sql: \(sql\): table plants already exists/,
    );

    writeFileSync(path.join(dir, 'schema.sql'), 'CREATE TABLE IF NOT EXISTS trees (id INTEGER);');
    expect(problemsOf(() => loadPack(dir))).toEqual([
      'pack.yml: schema.owned_tables: plants not created by schema.sql',
    ]);
  });

  it('reports bad YAML and a folder that does not match the name', () => {
    const dir = copyFixture('alpha');
    writeFileSync(path.join(dir, 'pack.yml'), 'name: [unclosed');
    expect(problemsOf(() => loadPack(dir))[0]).toMatch(/^pack\.yml: \(yaml\): /);
    const renamed = path.join(path.dirname(dir), 'gamma');
    cpSync(path.join(FIXTURE_PACKS, 'alpha'), renamed, { recursive: true });
    expect(problemsOf(() => loadPack(renamed))).toEqual([
      'pack.yml: name: "alpha" must equal the folder name "gamma"',
    ]);
  });
});

describe('pack storage', () => {
  it('creates pack.db from schema.sql and seeds the notes once', () => {
    const home = temp();
    const pack = loadPack(path.join(FIXTURE_PACKS, 'alpha'));
    const first = openPackStorage(home, pack);
    first.db.prepare("INSERT INTO plants (name) VALUES ('fern')").run();
    first.writeNote('USER.md', 'edited by the user');
    first.close();

    const again = openPackStorage(home, pack);
    expect(again.readNote('USER.md')).toBe('edited by the user');
    expect(again.readNote('MEMORY.md')).toContain('ALPHA-MEMORY-NOTE');
    expect(again.db.prepare('SELECT name FROM plants').all()).toEqual([{ name: 'fern' }]);
    expect(existsSync(path.join(home, 'packs', 'alpha', 'files'))).toBe(true);
    again.close();
  });

  it('keeps a note read once and reads it again whenever the file changed, by satchel or by hand', () => {
    const home = temp();
    const storage = openPackStorage(home, loadPack(path.join(FIXTURE_PACKS, 'alpha')));
    const file = path.join(home, 'packs', 'alpha', 'USER.md');
    const settled = (when: number) => utimesSync(file, when / 1000, when / 1000);
    storage.writeNote('USER.md', 'likes tea');
    expect(storage.readNote('USER.md')).toBe('likes tea');
    // An edit by hand, the same size, dated an hour ago: a new inode or time, so read again.
    writeFileSync(file, 'likes rum');
    settled(Date.now() - 3_600_000);
    expect(storage.readNote('USER.md')).toBe('likes rum');
    // Unchanged since: kept. The proof is a change that keeps size, inode and time.
    const kept = statSync(file);
    writeFileSync(file, 'likes gin');
    utimesSync(file, kept.atime, kept.mtime);
    expect(storage.readNote('USER.md')).toBe('likes rum');
    // Any other time is a change; so is satchel's own write.
    settled(Date.now() - 1_800_000);
    expect(storage.readNote('USER.md')).toBe('likes gin');
    storage.writeNote('USER.md', 'likes gin');
    expect(storage.readNote('USER.md')).toBe('likes gin');
    // A file changed in the last two seconds is read every time.
    const now = statSync(file);
    writeFileSync(file, 'likes tea');
    utimesSync(file, now.atime, now.mtime);
    expect(storage.readNote('USER.md')).toBe('likes tea');
    storage.close();
  });

  it("gives the model the notes without their HTML comments, which stay in the user's file", () => {
    const storage = openPackStorage(temp(), loadPack(path.join(BUNDLED, 'journal')));
    storage.writeNote(
      'MEMORY.md',
      '# Memory\n<!-- what goes here -->\n\n## Threads\n- moving in May <!-- since 3 March -->\n',
    );
    const notes = packPromptSections(loadPack(path.join(BUNDLED, 'journal')), storage).filter((s) =>
      /^# (USER|MEMORY)\.md/.test(s),
    );
    expect(notes).toHaveLength(2);
    expect(notes.join('\n')).not.toContain('<!--');
    expect(notes[0]).toContain('## Why I journal\n\n## Preferences\n- Prompt style:\n');
    expect(notes[1]).toBe('# MEMORY.md\n# Memory\n\n## Threads\n- moving in May');
    expect(storage.readNote('USER.md')).toContain(
      '- Prompt style: <!-- gentle / direct / playful -->',
    );
    storage.close();
  });
});
