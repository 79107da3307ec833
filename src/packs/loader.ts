import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseYaml } from 'yaml';
import { SatchelError } from '../core/errors.ts';
import {
  describeIssue,
  type Manifest,
  manifestSchema,
  skillFrontmatterSchema,
} from './manifest.ts';

export interface Skill {
  name: string;
  description: string;
  command: boolean;
  /** The instructions (SKILL.md without its frontmatter). */
  body: string;
  /** Other files in the skill's folder, relative to it. */
  files: string[];
}

/** A loaded, validated pack. Nothing here is per-user state; see storage.ts for that. */
export interface Pack {
  name: string;
  displayName: string;
  description: string;
  dir: string;
  manifest: Manifest;
  skills: Skill[];
  soul: string | undefined;
  schemaSql: string | undefined;
  templates: { user: string | undefined; memory: string | undefined };
}

export interface PackProblem {
  file: string;
  field: string;
  problem: string;
}

/** A pack that cannot load; the message names the file, the field and the problem. */
export class PackError extends SatchelError {
  readonly problems: PackProblem[];

  constructor(problems: PackProblem[]) {
    super('pack_invalid', problems.map((p) => `${p.file}: ${p.field}: ${p.problem}`).join('\n'));
    this.problems = problems;
  }
}

const fail = (file: string, field: string, problem: string): never => {
  throw new PackError([{ file, field, problem }]);
};

/** Loads and validates the pack in `dir`; throws a PackError naming what is wrong. */
export function loadPack(dir: string): Pack {
  const manifestFile = path.join(dir, 'pack.yml');
  if (!existsSync(manifestFile)) fail(manifestFile, '(file)', 'pack.yml is missing');
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(manifestFile, 'utf8'));
  } catch (error) {
    fail(manifestFile, '(yaml)', (error as Error).message.split('\n')[0] ?? 'invalid YAML');
  }
  const parsed = manifestSchema.safeParse(raw ?? {});
  if (!parsed.success)
    throw new PackError(
      parsed.error.issues.map((issue) => ({ file: manifestFile, ...describeIssue(issue) })),
    );
  const manifest = parsed.data;
  const folder = path.basename(path.resolve(dir));
  if (manifest.name !== folder)
    fail(manifestFile, 'name', `"${manifest.name}" must equal the folder name "${folder}"`);

  const schemaFile = path.join(dir, 'schema.sql');
  const schemaSql = readOptional(schemaFile);
  checkSchema(schemaFile, schemaSql, manifest.schema.owned_tables, manifestFile);

  return {
    name: manifest.name,
    displayName: manifest.display_name,
    description: manifest.description,
    dir,
    manifest,
    skills: manifest.skills.map((name) => loadSkill(dir, name)),
    soul: readOptional(path.join(dir, 'SOUL.md')),
    schemaSql,
    templates: {
      user: readOptional(path.join(dir, 'templates', 'USER.md')),
      memory: readOptional(path.join(dir, 'templates', 'MEMORY.md')),
    },
  };
}

function loadSkill(packDir: string, name: string): Skill {
  const dir = path.join(packDir, 'skills', name);
  const file = path.join(dir, 'SKILL.md');
  const text = readOptional(file) ?? fail(file, '(file)', `skill "${name}" has no SKILL.md`);
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return fail(file, '(frontmatter)', 'must start with a --- YAML frontmatter block');
  let front: unknown;
  try {
    front = parseYaml(match[1] ?? '');
  } catch (error) {
    return fail(file, '(frontmatter)', (error as Error).message.split('\n')[0] ?? 'invalid YAML');
  }
  const parsed = skillFrontmatterSchema.safeParse(front ?? {});
  if (!parsed.success)
    throw new PackError(parsed.error.issues.map((issue) => ({ file, ...describeIssue(issue) })));
  if (parsed.data.name !== name)
    fail(file, 'name', `"${parsed.data.name}" must equal the folder name "${name}"`);
  const files = readdirSync(dir).filter((f) => f !== 'SKILL.md');
  return { ...parsed.data, body: (match[2] ?? '').trim(), files };
}

/** Applies schema.sql to a scratch database twice (it runs at every start) and checks the owned tables. */
function checkSchema(file: string, sql: string | undefined, owned: string[], manifest: string) {
  const db = new Database(':memory:');
  try {
    if (sql !== undefined) {
      try {
        db.exec(sql);
        db.exec(sql);
      } catch (error) {
        fail(
          file,
          '(sql)',
          `${(error as Error).message} (it must be safe to apply at every start)`,
        );
      }
    }
    const tables = new Set(
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((row) => (row as { name: string }).name),
    );
    const missing = owned.filter((t) => !tables.has(t));
    if (missing.length > 0)
      fail(manifest, 'schema.owned_tables', `${missing.join(', ')} not created by schema.sql`);
  } finally {
    db.close();
  }
}

function readOptional(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export interface LoadResult {
  packs: Pack[];
  errors: PackError[];
}

/**
 * Loads every pack found in `dirs` (each holds pack folders). A broken pack is reported
 * and skipped; the others load. A missing directory holds no packs.
 */
export function loadPacks(dirs: readonly string[]): LoadResult {
  const packs: Pack[] = [];
  const errors: PackError[] = [];
  for (const root of dirs) {
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root).sort()) {
      const dir = path.join(root, entry);
      if (!statSync(dir).isDirectory() || entry.startsWith('.')) continue;
      try {
        const pack = loadPack(dir);
        const clash = packs.find(
          (p) =>
            p.name === pack.name || p.displayName.toLowerCase() === pack.displayName.toLowerCase(),
        );
        if (clash)
          fail(path.join(dir, 'pack.yml'), 'name', `clashes with the pack in ${clash.dir}`);
        packs.push(pack);
      } catch (error) {
        if (!(error instanceof PackError)) throw error;
        errors.push(error);
      }
    }
  }
  return { packs, errors };
}
