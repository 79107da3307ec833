import { existsSync } from 'node:fs';
import path from 'node:path';
import { readYamlFile } from '../core/yaml-source.ts';
import { isProvider, PROVIDER_NAMES, type Provider, specOf } from '../providers/registry.ts';
import { checkExistingDatabase } from './check-database.ts';
import { inspectPack, type Pack } from './loader.ts';
import { fieldPath } from './manifest.ts';
import { formatProblem, type PackProblem } from './problems.ts';
import { didYouMean } from './suggest.ts';

/** What `satchel pack validate` found. */
export interface Validation {
  /** The pack's folder: the report names its files relative to it. */
  dir?: string;
  pack: Pack | undefined;
  /** Every problem, the pack's own and those its migrations meet on the existing data. */
  problems: PackProblem[];
  /** The user's existing database of this pack, when there is one, and what the next start does to it. */
  existing?: { dbFile: string; from: number; to: number };
}

/**
 * Checks the pack in `dir` completely; with `home` (SATCHEL_HOME), also tries its schema and
 * pending migrations on an in-memory copy of the pack's existing database there, so a
 * migration that would fail on real data is found before a start skips the pack.
 */
export function validatePack(
  dir: string,
  home?: string,
  env: Record<string, string | undefined> = {},
): Validation {
  const inspected = inspectPack(dir);
  const modelProblems = unknownProviders(dir, env);
  const pack = modelProblems.length > 0 ? undefined : inspected.pack;
  const problems = [...inspected.problems, ...modelProblems];
  if (!pack || !home) return { dir, pack, problems };
  const dbFile = path.join(home, 'packs', pack.name, 'pack.db');
  if (!existsSync(dbFile)) return { dir, pack, problems };
  const result = checkExistingDatabase(dbFile, pack);
  return {
    dir,
    pack: result.problems.length > 0 ? undefined : pack,
    problems: result.problems.map((p) => ({ ...p, problem: `on ${dbFile}: ${p.problem}` })),
    existing: { dbFile, from: result.from, to: result.to },
  };
}

/**
 * `model: nosuch:gpt-9` (the pack's, or a cron entry's own) names a provider satchel does
 * not know. At run time such a value is a model name of the default provider (`llava:13b`
 * on a self-hosted, OpenAI-compatible server), so it is refused here only when that
 * provider is not pointed at another server.
 */
function unknownProviders(dir: string, env: Record<string, string | undefined>): PackProblem[] {
  const file = path.join(dir, 'pack.yml');
  if (!existsSync(file)) return [];
  const fallback: Provider = isProvider(env.LLM_PROVIDER ?? '')
    ? (env.LLM_PROVIDER as Provider)
    : 'openai';
  if (env[specOf(fallback).env.baseUrl]?.trim()) return [];
  // Read on its own, so it is reported with the pack's other problems, in one round.
  const source = readYamlFile(file);
  const manifest = source.value as { model?: unknown; cron?: unknown } | null | undefined;
  const cron = Array.isArray(manifest?.cron) ? (manifest.cron as unknown[]) : [];
  const refs: [unknown, (string | number)[]][] = [
    [manifest?.model, ['model']],
    ...cron.map((entry, i): [unknown, (string | number)[]] => [
      (entry as { model?: unknown } | null)?.model,
      ['cron', i, 'model'],
    ]),
  ];
  return refs.flatMap(([value, at]) => {
    const prefix = providerPrefix(value);
    if (prefix === undefined || isProvider(prefix)) return [];
    return [
      {
        file,
        field: fieldPath(at),
        problem:
          `unknown provider \`${prefix}\`${didYouMean(prefix, PROVIDER_NAMES)}: ` +
          `use one of ${PROVIDER_NAMES.join(', ')}, as "provider:model"`,
        line: source.lineOf(at),
      },
    ];
  });
}

/** The part before the colon of a `provider:model` string, if it has one. */
function providerPrefix(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const colon = value.indexOf(':');
  return colon > 0 ? value.slice(0, colon) : undefined;
}

/** A problem whose file is named from the pack's folder (`pack.yml`, `skills/x/SKILL.md`). */
function relativeTo(dir: string | undefined, p: PackProblem): PackProblem {
  if (!dir) return p;
  const relative = path.relative(dir, p.file);
  return relative && !relative.startsWith('..') ? { ...p, file: relative } : p;
}

/** Problems by file, then by line, as an author fixes them top to bottom. */
const inOrder = (problems: PackProblem[]): PackProblem[] =>
  [...problems].sort(
    (a, b) => a.file.localeCompare(b.file) || (a.line ?? Infinity) - (b.line ?? Infinity),
  );

const pad = (n: number) => String(n).padStart(4, '0');

/** The report: a summary of a valid pack (stdout), or one line per problem (stderr). */
export function validationReport(v: Validation): { ok: boolean; text: string } {
  const { pack } = v;
  if (!pack) {
    const count = v.problems.length === 1 ? '1 problem' : `${v.problems.length} problems`;
    return {
      ok: false,
      text: `invalid pack (${count}):\n${inOrder(v.problems.map((p) => relativeTo(v.dir, p)))
        .map(formatProblem)
        .join('\n')}`,
    };
  }
  const { manifest } = pack;
  const lines = [
    `ok: ${pack.name} ${manifest.version} (${pack.displayName})`,
    `  skills: ${pack.skills.map((s) => (s.command ? `/${s.commandName}` : s.name)).join(', ')}`,
    `  owned tables: ${manifest.schema.owned_tables.join(', ') || 'none'}`,
    `  tools: ${manifest.tools.join(', ') || 'none'}`,
    `  schedules: ${manifest.cron.map((c) => `${c.id} (${c.schedule})`).join(', ') || 'none'}${manifest.jobs_may_schedule ? '; jobs may create jobs' : ''}`,
    `  mcp servers: ${manifest.mcp.map((s) => `${s.name} (${s.url ? `http ${s.url}` : `stdio ${s.command}`})`).join(', ') || 'none'}`,
    `  migrations: ${pack.migrations.map((m) => path.basename(m.file)).join(', ') || 'none'}`,
    `  actions: ${manifest.actions.map((a) => `${a.id}(${a.params.join(', ')})`).join(', ') || 'none'}`,
  ];
  const e = v.existing;
  if (e)
    lines.push(
      e.to > e.from
        ? `  data: ${e.dbFile} is at migration ${pad(e.from)}; the next start applies up to ${pad(e.to)} (tried on a copy: ok)`
        : `  data: ${e.dbFile} is up to date (migration ${pad(e.from)})`,
    );
  return { ok: true, text: lines.join('\n') };
}
