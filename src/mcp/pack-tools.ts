import type { Logger } from '../core/ports.ts';
import { type SchemaTool, ToolError } from '../tools/tool.ts';
import { assignToolNames } from './tool-names.ts';
import type { McpHub, McpImage, McpResult, McpServerConfig, McpTool } from './types.ts';

/** An MCP tool refused because its provider name is taken, for the log and doctor. */
export interface McpClash {
  server: string;
  tool: string;
  name: string;
  with: string;
}

/** A pack's MCP tools under the names the model sees, and those a name clash left out. */
export interface NamedMcpTools {
  tools: (McpTool & { name: string })[];
  clashes: McpClash[];
  failed: { server: string; reason: string }[];
}

/**
 * The tools of a pack's servers (started if need be), named `<server>__<tool>` against the
 * names already taken (the core tools); a tool whose name is taken is left out.
 */
export async function namedMcpTools(
  hub: McpHub,
  servers: readonly McpServerConfig[],
  taken: Iterable<string>,
  signal: AbortSignal,
): Promise<NamedMcpTools> {
  const { tools, failed } = await hub.tools(servers, signal);
  const { named, clashes } = assignToolNames(tools, taken);
  return {
    tools: named,
    failed,
    clashes: clashes.map((c) => ({
      server: c.tool.server,
      tool: c.tool.tool,
      name: c.name,
      with: c.with,
    })),
  };
}

/**
 * The pack's MCP tools for one turn, as tools the runner takes. A server that failed to
 * start and a refused name are logged; the turn goes on with the rest.
 */
export async function packMcpTools(deps: {
  hub: McpHub;
  servers: readonly McpServerConfig[];
  taken: Iterable<string>;
  signal: AbortSignal;
  log: Logger;
}): Promise<SchemaTool[]> {
  const { hub, servers, log } = deps;
  const { tools, failed, clashes } = await namedMcpTools(hub, servers, deps.taken, deps.signal);
  for (const { server, reason } of failed)
    log.warn(
      { event: 'mcp_server_failed', server, reason },
      `MCP server ${server} is not available: ${reason}`,
    );
  for (const clash of clashes)
    log.warn(
      { event: 'mcp_tool_clash', ...clash },
      `MCP tool ${clash.server}/${clash.tool} left out: its name ${clash.name} is taken by ${clash.with}`,
    );
  const byName = new Map(servers.map((s) => [s.name, s]));
  return tools.map((tool) => schemaTool(hub, byName.get(tool.server)!, tool));
}

function schemaTool(
  hub: McpHub,
  server: McpServerConfig,
  tool: McpTool & { name: string },
): SchemaTool {
  return {
    name: tool.name,
    description: tool.description.trim() || `${tool.tool} (MCP server ${server.name})`,
    parameters: parametersOf(tool.inputSchema),
    async run(args, signal) {
      const result = await hub.call(server, tool.tool, args, signal);
      const text = resultText(result);
      if (result.isError) throw new ToolError(text || 'the tool reported an error');
      return text;
    },
  };
}

/**
 * The server's schema as the providers take it: `$schema` removed (Gemini refuses it), and
 * an object type, which MCP requires anyway.
 */
function parametersOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, ...rest } = schema;
  return { ...rest, type: 'object' };
}

/**
 * What the model reads: the text parts, then a line per image. Images are described, not
 * sent: a tool result carries text only on every provider, and a picture the model never
 * asked to see would cost its tokens in every later request of the session.
 */
export function resultText(result: McpResult): string {
  const lines = result.images.map(describeImage);
  return [result.text, ...lines].filter((part) => part !== '').join('\n');
}

/** Like the hub's line for other parts it does not pass on (result.ts). */
function describeImage(image: McpImage): string {
  const padding = image.data.endsWith('==') ? 2 : image.data.endsWith('=') ? 1 : 0;
  const bytes = Math.floor((image.data.length * 3) / 4) - padding;
  return `[image: ${image.mimeType}, ${bytes} bytes, not shown]`;
}
