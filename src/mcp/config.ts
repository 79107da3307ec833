import type { Manifest } from '../packs/manifest.ts';
import { type McpServerEntry, SETTING_REFERENCE } from '../packs/manifest-mcp.ts';
import { settingVariable } from '../packs/settings.ts';
import type { McpServerConfig } from './types.ts';

/** A declared server that cannot run as configured now, and why (named for the operator). */
export interface McpUnavailable {
  server: string;
  reason: string;
}

/** A pack's servers: those ready to run, and those a missing optional setting holds back. */
export interface PackMcpServers {
  servers: McpServerConfig[];
  unavailable: McpUnavailable[];
}

/**
 * A pack's `mcp:` entries, ready for the hub: `${settings.NAME}` filled in from the pack's
 * resolved settings, defaults applied, a stdio server run from the pack's folder. A server
 * that references an optional setting that is unset is unavailable (with the variable to
 * set), not an error of the pack or of its turns.
 */
export function packMcpServers(
  pack: { name: string; dir: string; manifest: Pick<Manifest, 'mcp'> },
  settings: Readonly<Record<string, string>>,
): PackMcpServers {
  const servers: McpServerConfig[] = [];
  const unavailable: McpUnavailable[] = [];
  for (const entry of pack.manifest.mcp) {
    const unset = unsetReferences(entry, settings);
    if (unset.length > 0) {
      const variables = unset.map((name) => settingVariable(pack.name, name));
      unavailable.push({
        server: entry.name,
        reason: `it uses ${unset.map((n) => `\${settings.${n}}`).join(', ')}, which is unset: set ${variables.join(', ')} in the environment (.env)`,
      });
      continue;
    }
    servers.push(serverConfig(pack, entry, settings));
  }
  return { servers, unavailable };
}

function serverConfig(
  pack: { name: string; dir: string },
  entry: McpServerEntry,
  settings: Readonly<Record<string, string>>,
): McpServerConfig {
  const fill = (values: Record<string, string> | undefined) =>
    Object.fromEntries(
      Object.entries(values ?? {}).map(([key, value]) => [
        key,
        value.replace(SETTING_REFERENCE, (_, name: string) => settings[name] ?? ''),
      ]),
    );
  return {
    pack: pack.name,
    name: entry.name,
    transport:
      entry.url !== undefined
        ? { type: 'http', url: entry.url, headers: fill(entry.headers) }
        : {
            type: 'stdio',
            command: entry.command ?? '',
            args: entry.args ?? [],
            env: fill(entry.env),
            cwd: pack.dir,
          },
    ...(entry.tools ? { tools: entry.tools } : {}),
    timeoutMs: entry.timeout_ms,
    maxOutputChars: entry.max_output_chars,
  };
}

/** The settings an entry's env or headers reference that have no value, each once. */
function unsetReferences(
  entry: McpServerEntry,
  settings: Readonly<Record<string, string>>,
): string[] {
  const values = [...Object.values(entry.env ?? {}), ...Object.values(entry.headers ?? {})];
  const names = values.flatMap((v) => [...v.matchAll(SETTING_REFERENCE)].map((m) => m[1]!));
  return [...new Set(names)].filter((name) => settings[name] === undefined);
}

/**
 * Every served pack's servers, read once at start; `onUnavailable` hears each server a
 * missing optional setting holds back (for the log).
 */
export function mcpServersByPack(
  packs: readonly { name: string; dir: string; manifest: Pick<Manifest, 'mcp'> }[],
  settings: ReadonlyMap<string, Readonly<Record<string, string>>>,
  onUnavailable: (pack: string, unavailable: McpUnavailable) => void,
): (pack: string) => readonly McpServerConfig[] {
  const byPack = new Map<string, McpServerConfig[]>();
  for (const pack of packs) {
    if (pack.manifest.mcp.length === 0) continue;
    const { servers, unavailable } = packMcpServers(pack, settings.get(pack.name) ?? {});
    for (const u of unavailable) onUnavailable(pack.name, u);
    byPack.set(pack.name, servers);
  }
  return (pack) => byPack.get(pack) ?? [];
}
