import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { readYaml, type YamlSource } from '../core/yaml-source.ts';
import { type ActionSpec, actionsThatParse } from './actions.ts';
import { actionProblems } from './check-actions.ts';
import { checkFreshDatabase } from './check-database.ts';
import { describeIssue, fieldPath, type Manifest, manifestSchema, SKILL_NAME } from './manifest.ts';
import { type Migration, readMigrations } from './migrations.ts';
import { readPackFile } from './pack-files.ts';
import { PackError, type PackProblem } from './problems.ts';
import { loadSkill, type Skill } from './skills.ts';
import { didYouMean } from './suggest.ts';

export { PackError, type PackProblem } from './problems.ts';
export type { Skill } from './skills.ts';

/** A loaded, validated pack. Nothing here is per-user state; see storage.ts for that. */
export interface Pack {
  name: string;
  displayName: string;
  description: string;
  dir: string;
  manifest: Manifest;
  skills: Skill[];
  soul: string | undefined;
  /** schema.sql: migration zero, re-applied at every start. */
  schemaSql: string | undefined;
  /** migrations/NNNN_name.sql, in order. */
  migrations: Migration[];
  templates: { user: string | undefined; memory: string | undefined };
}

/** A pack folder, checked: the pack when it is valid, else every problem found in it. */
export interface PackInspection {
  dir: string;
  pack: Pack | undefined;
  problems: PackProblem[];
}

/**
 * Checks the pack in `dir` completely (manifest, every skill, schema.sql and migrations on a
 * scratch database, owned tables) and reports all its problems, not only the first.
 */
export function inspectPack(dir: string): PackInspection {
  const problems: PackProblem[] = [];
  const read = (...parts: string[]) => readPackFile(dir, path.join(dir, ...parts), problems);
  const found = readManifest(dir, problems);
  const skills: Skill[] = [];
  for (const name of found.skills) {
    const loaded = loadSkill(dir, name);
    if (loaded.skill) skills.push(loaded.skill);
    problems.push(...loaded.problems);
  }
  problems.push(...commandClashes(dir, skills));
  if (found.manifest) problems.push(...commandActions(dir, skills, found.manifest.actions));

  const schemaSql = read('schema.sql');
  const soul = read('SOUL.md');
  const templates = { user: read('templates', 'USER.md'), memory: read('templates', 'MEMORY.md') };
  const { migrations, problems: migrationProblems } = readMigrations(dir);
  problems.push(...migrationProblems);
  if (migrationProblems.length === 0) {
    const db = checkFreshDatabase({ dir, schemaSql, migrations }, (scratch, tables) =>
      actionProblems(path.join(dir, 'pack.yml'), found, scratch, tables),
    );
    problems.push(...db.problems);
    const missing = (found.ownedTables ?? []).filter((t) => !db.tables.has(t));
    if (db.problems.length === 0 && missing.length > 0)
      problems.push({
        file: path.join(dir, 'pack.yml'),
        field: 'schema.owned_tables',
        problem: `${missing.join(', ')} not created by schema.sql${migrations.length ? ' or the migrations' : ''}`,
        line: found.source?.lineOf(['schema', 'owned_tables']),
      });
  }

  const { manifest } = found;
  if (!manifest || problems.length > 0) return { dir, pack: undefined, problems };
  return {
    dir,
    problems,
    pack: {
      name: manifest.name,
      displayName: manifest.display_name,
      description: manifest.description,
      dir,
      manifest,
      skills,
      soul,
      schemaSql,
      migrations,
      templates,
    },
  };
}

/** Loads and validates the pack in `dir`; throws a PackError with every problem found. */
export function loadPack(dir: string): Pack {
  const { pack, problems } = inspectPack(dir);
  if (!pack) throw new PackError(problems);
  return pack;
}

interface FoundManifest {
  manifest: Manifest | undefined;
  /** The skills to check: the manifest's, or the well-formed names of a broken one. */
  skills: string[];
  ownedTables: string[] | undefined;
  /** The actions to check against the database: each one that parsed, by its place. */
  actions: (ActionSpec | undefined)[];
  source: YamlSource | undefined;
}

/** Reads pack.yml, adding its problems (with lines) to `problems`. */
function readManifest(dir: string, problems: PackProblem[]): FoundManifest {
  const file = path.join(dir, 'pack.yml');
  const text = readPackFile(dir, file, problems);
  const none = {
    manifest: undefined,
    skills: [],
    ownedTables: undefined,
    actions: [],
    source: undefined,
  };
  if (text === undefined) {
    if (!problems.some((p) => p.file === file))
      problems.push({ file, field: '(file)', problem: 'pack.yml is missing' });
    return none;
  }
  const source = readYaml(text);
  problems.push(
    ...source.errors.map((e) => ({ file, field: '(yaml)', problem: e.message, line: e.line })),
  );
  if (source.value === undefined) return { ...none, source };
  const raw = (source.value ?? {}) as Record<string, unknown>;
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      problems.push(...issueProblems(file, issue, raw, source));

  const folder = path.basename(path.resolve(dir));
  const name = parsed.success ? parsed.data.name : raw.name;
  if (typeof name === 'string' && /^[a-z][a-z0-9-]*$/.test(name) && name !== folder)
    problems.push({
      file,
      field: 'name',
      problem: `"${name}" must equal the folder name "${folder}"`,
      line: source.lineOf(['name']),
    });
  if (parsed.success)
    return {
      manifest: parsed.data,
      skills: parsed.data.skills,
      ownedTables: parsed.data.schema.owned_tables,
      actions: parsed.data.actions,
      source,
    };
  const schema = raw.schema as Record<string, unknown> | undefined;
  return {
    manifest: undefined,
    skills: [...new Set(strings(raw.skills).filter((s) => SKILL_NAME.test(s)))],
    ownedTables: strings(schema?.owned_tables),
    actions: actionsThatParse(raw.actions),
    source,
  };
}

type Issue = z.core.$ZodIssue;

/** A zod issue as problems with lines; an unknown key is one problem per key, at its line. */
function issueProblems(
  file: string,
  issue: Issue,
  raw: unknown,
  source: YamlSource,
): PackProblem[] {
  const meant = unionIssues(issue);
  if (meant) return meant.flatMap((inner) => issueProblems(file, inner, raw, source));
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(manifestSchema.shape);
    return issue.keys.map((key) => ({
      file,
      field: fieldPath([...issue.path, key]),
      problem:
        issue.path.length === 0
          ? `unknown field${didYouMean(key, known)}; pack.yml has: ${known.join(', ')}`
          : 'unknown field',
      line: source.lineOf(issue.path, key),
    }));
  }
  return [{ file, ...describeIssue(issue, raw), line: source.lineOf(issue.path) }];
}

/**
 * A value that fits none of a union's shapes (an action's button, or a line of buttons): the
 * issues of the one shape it was meant as, the only one that did not refuse its type outright,
 * so a misspelt field in a button reads "unknown field" rather than "Invalid input".
 */
function unionIssues(issue: Issue): Issue[] | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const meant = issue.errors.filter(
    (issues) => !issues.some((i) => i.code === 'invalid_type' && i.path.length === 0),
  );
  if (meant.length !== 1) return undefined;
  return meant[0]!.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue);
}

/**
 * A skill command that runs an action (`action:` in its frontmatter) names one of the pack's
 * actions, and one without params: a command gives none.
 */
function commandActions(
  dir: string,
  skills: readonly Skill[],
  actions: readonly ActionSpec[],
): PackProblem[] {
  return skills.flatMap((skill) => {
    if (skill.action === undefined) return [];
    const action = actions.find((a) => a.id === skill.action);
    const problem = !action
      ? `"${skill.action}" is not one of this pack's actions${actions.length ? ` (${actions.map((a) => a.id).join(', ')})` : ''}`
      : action.params.length > 0
        ? `action "${action.id}" takes params (${action.params.join(', ')}), which a command cannot give`
        : undefined;
    const file = path.join(dir, 'skills', skill.name, 'SKILL.md');
    return problem ? [{ file, field: 'action', problem }] : [];
  });
}

/** Two skills whose commands would be the same (`my-skill` and `my_skill`). */
function commandClashes(dir: string, skills: readonly Skill[]): PackProblem[] {
  const seen = new Map<string, string>();
  const problems: PackProblem[] = [];
  for (const skill of skills.filter((s) => s.command)) {
    const other = seen.get(skill.commandName);
    if (other)
      problems.push({
        file: path.join(dir, 'skills', skill.name, 'SKILL.md'),
        field: 'command',
        problem: `/${skill.commandName} is also the command of skill "${other}" (- becomes _ in commands); rename one or set command: false`,
      });
    else seen.set(skill.commandName, skill.name);
  }
  return problems;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Inspects every pack folder in `dirs` (each holds pack folders; a missing directory holds
 * none), in name order. A pack whose name or display name is already taken by an earlier
 * one is refused.
 */
export function scanPacks(dirs: readonly string[]): PackInspection[] {
  const found: PackInspection[] = [];
  for (const root of dirs) {
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root).sort()) {
      const dir = path.join(root, entry);
      if (entry.startsWith('.') || !statSync(dir).isDirectory()) continue;
      const inspection = inspectPack(dir);
      const { pack } = inspection;
      const clash =
        pack &&
        found.find(
          (f) =>
            f.pack &&
            (f.pack.name === pack.name ||
              f.pack.displayName.toLowerCase() === pack.displayName.toLowerCase()),
        );
      if (pack && clash?.pack)
        found.push(clashOf(dir, pack, { name: clash.pack.name, dir: clash.dir }));
      else found.push(inspection);
    }
  }
  return found;
}

/** The pack in `dir`, refused: `earlier` already has its name or display name. */
function clashOf(dir: string, pack: Pack, earlier: { name: string; dir: string }): PackInspection {
  const sameName = pack.name === earlier.name;
  return {
    dir,
    pack: undefined,
    problems: [
      {
        file: path.join(dir, 'pack.yml'),
        field: sameName ? 'name' : 'display_name',
        problem: sameName
          ? `"${pack.name}" is already the name of the pack in ${earlier.dir}`
          : `"${pack.displayName}" is already the display name of pack "${earlier.name}" in ${earlier.dir}`,
        clashesWith: earlier,
      },
    ],
  };
}

export interface LoadResult {
  packs: Pack[];
  errors: PackError[];
}

/** Loads every pack found in `dirs`. A broken pack is reported and skipped; the others load. */
export function loadPacks(dirs: readonly string[]): LoadResult {
  const found = scanPacks(dirs);
  return {
    packs: found.flatMap((f) => (f.pack ? [f.pack] : [])),
    errors: found.filter((f) => !f.pack).map((f) => new PackError(f.problems)),
  };
}
