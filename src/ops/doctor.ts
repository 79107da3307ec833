import { type Config, parseConfig } from '../config/config.ts';
import { type EnvFileProblem, formatEnvProblem } from '../config/env-lint.ts';
import type { EdgeFactory } from '../core/edge.ts';
import { ConfigError } from '../core/errors.ts';
import type { McpHub } from '../mcp/types.ts';
import { packSettings } from '../packs/settings.ts';
import { modelsInUse } from '../providers/models-in-use.ts';
import { type SqliteDriver, sqliteDriver } from '../store/sqlite.ts';
import { bundledCatalog, type ModelCatalog } from '../usage/catalog.ts';
import { loadModelCatalog } from '../usage/catalog-file.ts';
import { type Check, fail, pass, warn } from './check.ts';
import { checkDefaultPack, checkSearchNeeded } from './doctor-defaults.ts';
import { checkDatabase, checkPacks, checkPort } from './doctor-local.ts';
import { checkMcpServers } from './doctor-mcp.ts';
import { checkPrices } from './doctor-prices.ts';
import { checkProviders, checkSearch } from './doctor-remote.ts';
import { checkSpeech, providerUses } from './doctor-speech.ts';

export interface DoctorOptions {
  /** The environment, `.env` included. */
  env: Record<string, string | undefined>;
  /** The mistakes found in `.env` (config/env-lint.ts), each shown as a warning. */
  envFileProblems?: readonly EnvFileProblem[];
  /** How long each network check may take (default 10 s). */
  timeoutMs?: number;
  /** The running Node's version (default: this process's). */
  nodeVersion?: string;
  /** The SQLite driver in use (default: the one this process loaded). */
  sqliteDriver?: SqliteDriver;
  /** The hub that starts the packs' MCP servers (default: the real one; tests fake it). */
  mcpHub?: McpHub;
  /** The application's edges (app.ts), whose own checks are run; none by default. */
  edges?: (config: Config) => readonly Pick<EdgeFactory, 'doctor'>[];
}

/** The Node versions satchel supports, as `engines` in package.json says. */
const SUPPORTED_NODE = '^20.19.0 || >=22.12.0';

/**
 * Everything `satchel doctor` checks, in order: Node, the configuration, each edge's checks of
 * it (Telegram's allowlist), the edges' remote checks (the bot token), each provider and
 * model, who transcribes voice, prices, the packs and their MCP servers, the database and the dashboard port.
 * Changes nothing: no update is fetched, no message sent, no token spent, nothing written
 * (the MCP servers it starts are stopped again).
 * With an invalid configuration only the first two are checked.
 */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const checks: Check[] = [
    checkNode(options.nodeVersion ?? process.versions.node),
    checkDriver(options.sqliteDriver ?? sqliteDriver),
    ...(options.envFileProblems ?? []).map((p) =>
      warn(
        formatEnvProblem(p),
        'Correct the name, or write it as NAME=value (.env.example lists every variable).',
      ),
    ),
  ];
  let config: Config;
  let edges: readonly Pick<EdgeFactory, 'doctor'>[];
  try {
    config = parseConfig(options.env);
    edges = options.edges?.(config) ?? [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const [, ...problems] = error.message.split('\n');
    checks.push(
      fail(
        'configuration: invalid (the other checks need it)',
        'Set each variable named above in .env or the environment (.env.example explains them all).',
        problems,
      ),
    );
    return checks;
  }
  checks.push(
    pass('configuration: valid'),
    ...edges.flatMap((edge) => edge.doctor?.local?.() ?? []),
  );
  const packs = checkPacks(config);
  // The packs that would serve (a pack missing a required setting is skipped at start).
  const loaded = packSettings(packs.packs, config.packSettings).packs;
  const { catalog, check: catalogCheck } = checkCatalog(config);
  checks.push(catalogCheck);
  const uses = modelsInUse(
    config,
    catalog,
    packs.packs.map((p) => ({ pack: p.name, model: p.manifest.model })),
  );
  const [edgeChecks, providers, speech, search, port, mcp] = await Promise.all([
    Promise.all(edges.map((edge) => edge.doctor?.remote?.(timeoutMs) ?? [])),
    checkProviders(config, providerUses(uses, config.env), timeoutMs),
    checkSpeech(config, timeoutMs),
    checkSearch(config, timeoutMs),
    checkPort(config, timeoutMs),
    checkMcpServers(config, packs.packs, options.mcpHub),
  ]);
  const prices = checkPrices(config, catalog, uses, packs.packs);
  checks.push(
    ...edgeChecks.flat(),
    ...providers,
    speech,
    ...search,
    ...checkSearchNeeded(config, loaded),
    ...prices,
    ...packs.checks,
    checkDefaultPack(config, loaded),
    ...mcp,
    checkDatabase(config),
    port,
  );
  return checks;
}

/** The owner's model catalog: valid (and what it adds), or the problems that stop start-up. */
function checkCatalog(config: Config): { catalog: ModelCatalog; check: Check } {
  try {
    const catalog = loadModelCatalog(config);
    const own = catalog.entries().filter((e) => e.source !== 'bundled').length;
    return {
      catalog,
      check: pass(
        own > 0
          ? `model catalog: ${own} entr${own === 1 ? 'y' : 'ies'} from ${catalog.file}`
          : 'model catalog: the bundled prices',
      ),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const [, ...problems] = error.message.split('\n');
    return {
      catalog: bundledCatalog(config.models.file),
      check: fail(
        `model catalog: invalid (${config.models.file})`,
        'Fix each line named above; satchel will not start until it is valid.',
        problems,
      ),
    };
  }
}

function checkNode(version: string): Check {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
  if (!supported)
    return fail(
      `Node ${version}: satchel needs ${SUPPORTED_NODE}`,
      'Install Node 24 (LTS), then run `npm install` again.',
    );
  if (major === 20)
    return warn(
      `Node ${version}: supported, but Node 20 is past its end of life`,
      'Move to Node 22 or 24 (LTS) when you can; run `npm install` after.',
    );
  return pass(`Node ${version}`);
}

/** Which better-sqlite3 build runs, and whether it is the one this Node should use. */
function checkDriver(driver: SqliteDriver): Check {
  const name = `SQLite driver: better-sqlite3 ${driver.version}`;
  if (driver.napiMissing)
    return warn(
      `${name}, but this Node should use the Node-API build (better-sqlite3-napi), which is not installed; on Node 24 this driver can abort`,
      'Run `npm install` (without --omit=optional or --no-optional).',
    );
  return pass(driver.name === 'better-sqlite3-napi' ? `${name} (Node-API build)` : name);
}
