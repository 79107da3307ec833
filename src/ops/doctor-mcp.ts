import type { Config } from '../config/config.ts';
import { packMcpServers } from '../mcp/config.ts';
import { namedMcpTools } from '../mcp/pack-tools.ts';
import { changeSummary } from '../mcp/pin-report.ts';
import type { McpPinStore } from '../mcp/pins.ts';
import type { McpHub, McpServerConfig } from '../mcp/types.ts';
import type { Pack } from '../packs/loader.ts';
import { CORE_TOOLS } from '../packs/manifest.ts';
import { packSettings } from '../packs/settings.ts';
import { readOnlyPins } from '../store/mcp-pin-repo.ts';
import { openCoreReader } from '../store/read-only.ts';
import { type Check, fail, pass, warn } from './check.ts';

/**
 * Each served pack's MCP servers, started as a turn starts them: the tools each offers under
 * the names the model sees, the tools a name clash leaves out or their pins withhold (read
 * from the database, never written), and why a server failed or is off. The servers are
 * stopped again before doctor ends.
 */
export async function checkMcpServers(
  config: Config,
  packs: readonly Pack[],
  hub?: McpHub,
): Promise<Check[]> {
  const settings = packSettings(packs, config.packSettings);
  const withServers = settings.packs.filter((p) => p.manifest.mcp.length > 0);
  if (withServers.length === 0) return [];
  const reader = hub ? undefined : openCoreReader(config.home);
  const own =
    hub ?? (await doctorHub(settings.secrets, reader ? { pins: readOnlyPins(reader.db) } : {}));
  try {
    const checks = await Promise.all(
      withServers.map((pack) => checkPack(own, pack, settings.values.get(pack.name) ?? {})),
    );
    return checks.flat();
  } finally {
    await own.close();
    reader?.close();
  }
}

async function checkPack(
  hub: McpHub,
  pack: Pack,
  values: Readonly<Record<string, string>>,
): Promise<Check[]> {
  const { servers, unavailable } = packMcpServers(pack, values);
  const checks: Check[] = unavailable.map(({ server, reason }) =>
    warn(
      `MCP server ${pack.name}/${server} is off: ${reason}`,
      'Set the variable named above to use its tools; the pack works without them.',
    ),
  );
  if (servers.length === 0) return checks;
  const named = await namedMcpTools(hub, servers, CORE_TOOLS, new AbortController().signal);
  for (const server of servers) {
    const failed = named.failed.find((f) => f.server === server.name);
    if (failed) {
      checks.push(
        fail(
          `MCP server ${pack.name}/${server.name} (${transportOf(server)}) failed: ${failed.reason}`,
          `Correct \`mcp\` entry "${server.name}" in ${pack.name}'s pack.yml, or the server itself; its tools are missing from the pack's turns until then.`,
        ),
      );
      continue;
    }
    const tools = named.tools.filter((t) => t.server === server.name).map((t) => t.name);
    checks.push(
      pass(
        `MCP server ${pack.name}/${server.name} (${transportOf(server)}): ${tools.length} tool${tools.length === 1 ? '' : 's'}`,
        tools.length > 0 ? [tools.join(', ')] : undefined,
      ),
    );
    for (const clash of named.clashes.filter((c) => c.server === server.name))
      checks.push(
        warn(
          `MCP server ${pack.name}/${server.name}: tool "${clash.tool}" left out, its name ${clash.name} is taken by ${clash.with}`,
          `Leave one of them out with \`tools:\` in ${pack.name}'s pack.yml, or rename it in the server.`,
        ),
      );
    for (const held of named.withheld.filter((w) => w.server === server.name))
      checks.push(
        warn(
          `MCP server ${pack.name}/${server.name}: tool "${held.tool}" withheld: ${changeSummary(held.change)}`,
          `Run \`npx satchel pack trust ${pack.name}\` to see the change and accept it; until then the model is not offered it.`,
        ),
      );
  }
  return checks;
}

/**
 * A hub of doctor's own, silent. The MCP client and the logger load only here, when a pack
 * has servers: most have none.
 */
async function doctorHub(secrets: readonly string[], options: { pins?: McpPinStore }) {
  const [{ createDefaultHub }, { createLogger }] = await Promise.all([
    import('../mcp/default-hub.ts'),
    import('../logging/logger.ts'),
  ]);
  return createDefaultHub(
    createLogger({ level: 'silent', secrets, format: 'json' }),
    secrets,
    options,
  );
}

function transportOf(server: McpServerConfig): string {
  const t = server.transport;
  return t.type === 'http' ? `http ${t.url}` : `stdio ${[t.command, ...t.args].join(' ')}`;
}

/**
 * The MCP tools their pins withhold now, over every pack (for `doctor --security`): each
 * pack's servers are started on a hub of doctor's own that reads the pins and never writes.
 */
export async function withheldMcpTools(config: Config, packs: readonly Pack[]) {
  const settings = packSettings(packs, config.packSettings);
  const withServers = settings.packs.filter((p) => p.manifest.mcp.length > 0);
  const reader = withServers.length > 0 ? openCoreReader(config.home) : undefined;
  if (!reader) return [];
  const hub = await doctorHub(settings.secrets, { pins: readOnlyPins(reader.db) });
  try {
    const listed = await Promise.all(
      withServers.map(async (pack) => {
        const { servers } = packMcpServers(pack, settings.values.get(pack.name) ?? {});
        const tools = await hub.tools(servers, new AbortController().signal);
        return (tools.withheld ?? []).map((w) => ({ ...w, pack: pack.name }));
      }),
    );
    return listed.flat();
  } finally {
    await hub.close();
    reader.close();
  }
}
