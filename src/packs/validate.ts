import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkExistingDatabase } from './check-database.ts';
import { inspectPack, type Pack } from './loader.ts';
import { formatProblem, type PackProblem } from './problems.ts';

/** What `satchel pack validate` found. */
export interface Validation {
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
export function validatePack(dir: string, home?: string): Validation {
  const { pack, problems } = inspectPack(dir);
  if (!pack || !home) return { pack, problems };
  const dbFile = path.join(home, 'packs', pack.name, 'pack.db');
  if (!existsSync(dbFile)) return { pack, problems };
  const result = checkExistingDatabase(dbFile, pack);
  return {
    pack: result.problems.length > 0 ? undefined : pack,
    problems: result.problems.map((p) => ({ ...p, problem: `on ${dbFile}: ${p.problem}` })),
    existing: { dbFile, from: result.from, to: result.to },
  };
}

const pad = (n: number) => String(n).padStart(4, '0');

/** The report: a summary of a valid pack (stdout), or one line per problem (stderr). */
export function validationReport(v: Validation): { ok: boolean; text: string } {
  const { pack } = v;
  if (!pack) {
    const count = v.problems.length === 1 ? '1 problem' : `${v.problems.length} problems`;
    return {
      ok: false,
      text: `invalid pack (${count}):\n${v.problems.map(formatProblem).join('\n')}`,
    };
  }
  const { manifest } = pack;
  const lines = [
    `ok: ${pack.name} ${manifest.version} (${pack.displayName})`,
    `  skills: ${pack.skills.map((s) => (s.command ? `/${s.commandName}` : s.name)).join(', ')}`,
    `  owned tables: ${manifest.schema.owned_tables.join(', ') || 'none'}`,
    `  tools: ${manifest.tools.join(', ') || 'none'}`,
    `  schedules: ${manifest.cron.map((c) => `${c.id} (${c.schedule})`).join(', ') || 'none'}${manifest.jobs_may_schedule ? '; jobs may create jobs' : ''}`,
    `  migrations: ${pack.migrations.map((m) => path.basename(m.file)).join(', ') || 'none'}`,
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
