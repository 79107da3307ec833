import { createLogger } from '../logging/logger.ts';
import { packMcpServers } from '../mcp/config.ts';
import { createDefaultHub } from '../mcp/default-hub.ts';
import { type McpPinStore, pinOf } from '../mcp/pins.ts';
import type { McpHub, McpServerConfig, WithheldTool } from '../mcp/types.ts';
import type { Pack } from '../packs/loader.ts';
import { type PackSettingsEnv, resolveSettings } from '../packs/settings.ts';

/** Why `pack trust` cannot compare a pack's tools (its message is for the owner). */
export class PackTrustError extends Error {
  override name = 'PackTrustError';
}

/** A pack's MCP tools as they are listed now against their pins. */
export interface TrustReview {
  servers: readonly McpServerConfig[];
  /** The tools the pins withhold, in the order of the servers and their listings. */
  withheld: WithheldTool[];
  /** Servers that could not be started or are off: their tools were not compared. */
  unreachable: { server: string; reason: string }[];
}

/**
 * Starts the pack's MCP servers as a turn would (on a hub of its own, stopped before this
 * returns) and compares their listings with the pins. A server with no pins yet is pinned
 * here as satchel would pin it at its first listing.
 */
export async function reviewPackTools(deps: {
  pack: Pack;
  env: PackSettingsEnv;
  pins: McpPinStore;
  /** The hub to use (tests fake it); default: satchel's own, with `pins`. */
  hub?: McpHub;
}): Promise<TrustReview> {
  const { pack } = deps;
  const settings = resolveSettings(pack.manifest, deps.env);
  if (settings.missing.length > 0)
    throw new PackTrustError(
      `pack ${pack.name} needs ${settings.missing.join(', ')} set (in the environment or .env) to start its servers`,
    );
  const { servers, unavailable } = packMcpServers(pack, settings.values);
  const unreachable = unavailable.map(({ server, reason }) => ({ server, reason }));
  if (servers.length === 0) return { servers, withheld: [], unreachable };
  const hub =
    deps.hub ??
    createDefaultHub(
      createLogger({ level: 'silent', secrets: settings.secrets, format: 'json' }),
      settings.secrets,
      { pins: deps.pins },
    );
  try {
    const listed = await hub.tools(servers, new AbortController().signal);
    unreachable.push(...listed.failed.map(({ server, reason }) => ({ server, reason })));
    return { servers, withheld: listed.withheld ?? [], unreachable };
  } finally {
    await hub.close();
  }
}

/** The owner trusts the changes: the withheld tools are pinned as they are listed now. */
export function acceptChanges(
  pins: McpPinStore,
  withheld: readonly WithheldTool[],
  now: number,
): void {
  const byServer = new Map<string, WithheldTool[]>();
  for (const w of withheld) {
    const key = `${w.pack}\u0000${w.server}`;
    byServer.set(key, [...(byServer.get(key) ?? []), w]);
  }
  for (const tools of byServer.values())
    pins.write(
      tools[0]!.pack,
      tools[0]!.server,
      tools.map((w) => pinOf(w.current)),
      now,
    );
}
