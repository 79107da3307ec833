import type { CoreConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import { homeKey, homeLabel } from '../core/home.ts';
import type { Logger } from '../core/ports.ts';
import { mcpServersByPack } from '../mcp/config.ts';
import { createDefaultHub } from '../mcp/default-hub.ts';
import type { McpHub } from '../mcp/types.ts';
import { loadPacks } from '../packs/loader.ts';
import { createPackRegistry } from '../packs/registry.ts';
import { missingSettingsMessage, packSettings } from '../packs/settings.ts';
import type { Db } from '../store/client.ts';
import { createMcpPinRepo } from '../store/mcp-pin-repo.ts';

/** The packs as their folders hold them, with their settings (whose secrets the log hides). */
export function readPacks(config: CoreConfig) {
  const loaded = loadPacks(config.packDirs);
  return { loaded, settings: packSettings(loaded.packs, config.packSettings) };
}

export type ReadPacks = ReturnType<typeof readPacks>;

export interface PackDeps {
  log: Logger;
  clock: Clock;
  secrets: readonly (string | undefined)[];
  db: Db;
  /** The hub instead of the real one (tests). */
  mcpHub: McpHub | undefined;
}

/**
 * The pack registry, each pack that cannot run logged (`pack_invalid`), each other home whose
 * database cannot be brought up to date named (`pack_home_refused`), and the MCP hub
 * with the servers each pack may start (one that cannot is logged, `mcp_server_unavailable`).
 */
export function buildPacks(config: CoreConfig, read: ReadPacks, deps: PackDeps) {
  const { log, clock, secrets } = deps;
  const { loaded, settings } = read;
  for (const { pack, missing } of settings.skipped)
    log.error(
      { event: 'pack_invalid', pack: pack.name, missing },
      `pack skipped: ${missingSettingsMessage(pack.name, missing)}`,
    );
  for (const error of loaded.errors)
    log.error(
      { event: 'pack_invalid', problems: error.problems },
      `pack skipped: ${error.message}`,
    );
  const packs = createPackRegistry(settings.packs, config.home, {
    onSkipped: (pack, error) =>
      log.error(
        { event: 'pack_invalid', pack: pack.name, problems: error.problems },
        `pack skipped: ${error.message}`,
      ),
    onHomeRefused: (pack, home, error) =>
      log.error(
        {
          event: 'pack_home_refused',
          pack: pack.name,
          home: homeKey(home),
          problems: error.problems,
        },
        `${pack.name}: ${homeLabel(home)} refused (only its conversations): ${error.message}`,
      ),
  });
  const mcpHub =
    deps.mcpHub ?? createDefaultHub(log, secrets, { clock, pins: createMcpPinRepo(deps.db) });
  const mcpServers = mcpServersByPack(packs.list(), settings.values, (pack, { server, reason }) =>
    log.warn(
      { event: 'mcp_server_unavailable', pack, server, reason },
      `MCP server ${server} of pack ${pack} is off: ${reason}`,
    ),
  );
  return { packs, mcpHub, mcpServers };
}

export type Packs = ReturnType<typeof buildPacks>;
