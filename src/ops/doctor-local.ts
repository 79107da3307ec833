import { createServer } from 'node:net';
import type { Config } from '../config/config.ts';
import { loadPacks, type Pack } from '../packs/loader.ts';
import type { PackError } from '../packs/problems.ts';
import { packSettings, settingVariable } from '../packs/settings.ts';
import { inspectCoreDb } from '../store/inspect.ts';
import { type Check, fail, pass, warn } from './check.ts';
import { checkHomes } from './doctor-homes.ts';

/** The packs: each loads and validates, as at start; a broken one says where and why. */
export function checkPacks(config: Config): { checks: Check[]; packs: Pack[] } {
  const { packs, errors } = loadPacks(config.packDirs);
  const checks: Check[] = errors.map(packErrorCheck);
  const settings = packSettings(packs, config.packSettings);
  for (const { pack, missing } of settings.skipped)
    checks.push(
      fail(
        `pack ${pack.name} misses required settings (it would be skipped): ${missing.join(', ')}`,
        `Set ${missing.join(', ')} in the environment (.env); docs/PACKS.md, "Settings", says what each is for.`,
        missing.map((variable) => `${variable}: ${describeSetting(pack, variable)}`),
      ),
    );
  // Only the packs that load: one refused for missing settings is reported above, not here.
  const loading = settings.packs;
  if (loading.length > 0)
    checks.unshift(
      pass(
        `packs: ${loading.length} valid (${loading.map((p) => `${p.name} ${p.manifest.version}`).join(', ')})`,
      ),
      ...checkHomes(config.home, loading),
    );
  else if (packs.length === 0 && errors.length === 0)
    checks.push(
      warn(
        `packs: none found in ${config.packDirs.join(', ')}`,
        'Point SATCHEL_PACKS at a directory of packs (the repository has some in packs/), ' +
          'or the bot answers without one.',
      ),
    );
  return { checks, packs };
}

/**
 * A pack that cannot load. A name clash is not a field to correct: it says which pack has the
 * name and how to keep only one.
 */
function packErrorCheck(error: PackError): Check {
  const file = error.problems[0]?.file ?? '';
  const clash = error.problems.find((p) => p.clashesWith)?.clashesWith;
  if (clash)
    return fail(
      `pack ${file} is skipped: the pack in ${clash.dir} (${clash.name}) already has its name`,
      `Keep one: remove the other (\`npx satchel pack remove ${clash.name}\` for a pack added with \`pack add\`, or delete its folder), or rename one in its pack.yml (name and display_name).`,
      error.message.split('\n'),
    );
  return fail(
    `pack ${file} is invalid (it would be skipped)`,
    'Correct each field named above, then run `npx satchel pack validate <dir>`.',
    error.message.split('\n'),
  );
}

function describeSetting(pack: Pack, variable: string): string {
  const setting = pack.manifest.settings.find(
    (s) => settingVariable(pack.name, s.name) === variable,
  );
  return setting?.description ?? '';
}

/** The core database: present (or creatable), migrated, in WAL mode, intact and writable. */
export function checkDatabase(config: Config): Check {
  const state = inspectCoreDb(config.home);
  if (!state.exists) {
    if (state.homeWritable)
      return pass(`database: not created yet; the first start creates it in ${config.home}`);
    return fail(
      `database: ${config.home} cannot be created or written`,
      'Make SATCHEL_HOME point at a directory the user running satchel can write.',
    );
  }
  const size = formatBytes(state.bytes);
  const problems: string[] = [];
  const fixes: string[] = [];
  if (!state.writable) {
    problems.push(`${state.file} is not writable`);
    fixes.push('give the user running satchel write access to SATCHEL_HOME and its files');
  }
  if (state.integrity !== 'ok') {
    problems.push(`integrity check: ${state.integrity}`);
    fixes.push('restore the latest backup (`npx satchel restore <archive>`)');
  }
  if (problems.length > 0)
    return fail(`database: ${problems.join('; ')}`, `${capitalize(fixes.join('; '))}.`);
  const migrations =
    state.pending.length === 0
      ? `migrations applied (${state.migrations})`
      : `${state.pending.length} migration(s) to apply at the next start (${state.pending.join(', ')})`;
  const wal = state.journalMode === 'wal' ? 'WAL' : `journal mode ${state.journalMode}`;
  return pass(`database: ${migrations}, ${wal}, ${size}, integrity ok`);
}

/**
 * The dashboard port: free, or held by a running satchel (its `/healthz` answers). Port 0
 * picks a free one at each start.
 */
export async function checkPort(config: Config, timeoutMs: number): Promise<Check> {
  const { port } = config.dashboard;
  if (port === 0) return pass('dashboard: DASHBOARD_PORT=0 picks a free port at each start');
  const error = await tryListen(port);
  if (!error) return pass(`dashboard: port ${port} on 127.0.0.1 is free`);
  if (error.code === 'EADDRINUSE' && (await answersHealth(port, timeoutMs)))
    return pass(`dashboard: port ${port} is in use by a running satchel`);
  return fail(
    `dashboard: port ${port} on 127.0.0.1 is not available (${error.code ?? error.message})`,
    'Stop the program that holds it, or set DASHBOARD_PORT to a free port (0 picks one at each start).',
  );
}

function tryListen(port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(undefined)));
  });
}

/** A local satchel answers /healthz at once; a program that does not speak HTTP never does. */
const HEALTH_TIMEOUT_MS = 2000;

/** Whether a satchel answers `/healthz` on the port (it needs no token). */
async function answersHealth(port: number, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
      signal: AbortSignal.timeout(Math.min(timeoutMs, HEALTH_TIMEOUT_MS)),
    });
    const body = (await response.json()) as Record<string, unknown>;
    // `db_writable` in every version's answer; `polling` in those before the edges' sections.
    return (
      typeof body === 'object' && body !== null && ('db_writable' in body || 'polling' in body)
    );
  } catch {
    return false;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
