import { toolEffect } from './effects.ts';
import type { Manifest } from './manifest.ts';
import { settingVariable } from './settings.ts';

/**
 * What a pack may do (SPEC §15), as `pack add` shows it before installing: each kind of
 * permission as rows of aligned cells. A row is the unit of comparison on --upgrade: a row
 * that changes (a setting that becomes required, a server with a new command) is one row
 * removed and one added.
 */
export interface Permissions {
  tools: string[][];
  effects: string[][];
  mcp: string[][];
  settings: string[][];
  schedules: string[][];
  tables: string[][];
}

type Kind = keyof Permissions;

const TITLES: Record<Kind, string> = {
  tools: 'Core tools',
  effects: 'Effects',
  mcp: 'MCP servers (their tools count as external unless the server marks them read-only)',
  settings: 'Settings and secrets it reads from the environment',
  schedules: 'Schedules',
  tables: 'Tables it owns (db_write may change them)',
};

/** The row's noun in an upgrade's list of changes. */
const NOUNS: Record<Kind, string> = {
  tools: 'tool',
  effects: 'effect',
  mcp: 'MCP server',
  settings: 'setting',
  schedules: 'schedule',
  tables: 'table',
};

type PackManifest = Pick<
  Manifest,
  'name' | 'tools' | 'mcp' | 'settings' | 'cron' | 'schema' | 'send_files'
>;

/** The permissions `manifest` asks for. */
export function packPermissions(manifest: PackManifest): Permissions {
  const effects = new Set(manifest.tools.map((tool) => toolEffect(manifest, tool)));
  if (manifest.mcp.length > 0) effects.add('external');
  return {
    tools: manifest.tools.map((tool) => [tool, toolEffect(manifest, tool)]),
    effects: (['read', 'write', 'external'] as const).filter((e) => effects.has(e)).map((e) => [e]),
    mcp: manifest.mcp.map((server) => [
      server.name,
      server.url ?? `stdio: ${[server.command ?? '', ...(server.args ?? [])].join(' ')}`,
    ]),
    settings: manifest.settings.map((s) => [
      s.name,
      [s.secret ? 'secret' : 'not secret', s.required ? 'required' : 'optional'].join(', '),
      settingVariable(manifest.name, s.name),
    ]),
    schedules: manifest.cron.map((job) => [
      job.id,
      job.schedule,
      `runs skill ${job.skill}${job.enabled ? '' : ' (paused)'}`,
    ]),
    tables: manifest.schema.owned_tables.map((table) => [table]),
  };
}

const KINDS = Object.keys(TITLES) as Kind[];

/** The permissions as a person reads them on a terminal: a title per kind, rows aligned. */
export function formatPermissions(title: string, p: Permissions): string {
  const lines = [title];
  for (const kind of KINDS) {
    if (kind === 'effects') continue;
    lines.push(`  ${TITLES[kind]}:`);
    if (p[kind].length === 0) lines.push('    none');
    else lines.push(...aligned(p[kind]).map((row) => `    ${row}`));
  }
  return `${lines.join('\n')}\n`;
}

/** What an upgrade adds and removes, as rows prefixed with the noun of their kind. */
export interface PermissionChanges {
  added: string[][];
  removed: string[][];
}

/** The rows `next` has that `previous` lacks, and the other way round. */
export function comparePermissions(previous: Permissions, next: Permissions): PermissionChanges {
  const key = (row: string[]) => row.join('\u0000');
  const changes: PermissionChanges = { added: [], removed: [] };
  for (const kind of KINDS) {
    const before = new Set(previous[kind].map(key));
    const after = new Set(next[kind].map(key));
    for (const row of next[kind])
      if (!before.has(key(row))) changes.added.push([NOUNS[kind], ...row]);
    for (const row of previous[kind])
      if (!after.has(key(row))) changes.removed.push([NOUNS[kind], ...row]);
  }
  return changes;
}

/**
 * The changes as `+` and `-` lines: sign, kind and name aligned across all lines, the rest
 * aligned among the rows of one kind (a setting's columns are not a schedule's).
 */
export function formatChanges(title: string, changes: PermissionChanges): string {
  const rows = [
    ...changes.added.map((row) => ['+', ...row]),
    ...changes.removed.map((row) => ['-', ...row]),
  ];
  if (rows.length === 0) return `${title}\n  nothing it may do changes\n`;
  const tails = new Map<string, string>();
  for (const noun of new Set(rows.map((row) => row[1]!))) {
    const ofKind = rows.filter((row) => row[1] === noun);
    aligned(ofKind.map((row) => row.slice(3))).forEach((tail, i) => {
      tails.set(ofKind[i]!.join('\u0000'), tail);
    });
  }
  const lines = aligned(rows.map((row) => [...row.slice(0, 3), tails.get(row.join('\u0000'))!]));
  return `${[title, ...lines.map((line) => `  ${line}`)].join('\n')}\n`;
}

/** Rows of cells as lines, each column as wide as its widest cell. */
function aligned(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
