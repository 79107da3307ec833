import type { Logger } from '../core/ports.ts';
import { type SchemaTool, ToolError } from '../tools/tool.ts';
import { type TurnImageBudget, turnImageBudget } from './image-budget.ts';
import { assignToolNames, namesOf } from './tool-names.ts';
import type {
  McpHub,
  McpImage,
  McpResult,
  McpServerConfig,
  McpTool,
  McpToolsOfPack,
  WithheldTool,
} from './types.ts';

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
  failed: McpToolsOfPack['failed'];
  /** Tools their pins hold back until the owner trusts the change (SPEC §17). */
  withheld: WithheldTool[];
  /** The listings were answered before: what they leave out is logged already. */
  repeated: boolean;
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
  const { tools, failed, withheld = [], repeated = false } = await hub.tools(servers, signal);
  const { named, clashes } = assignToolNames(tools, taken);
  return {
    tools: named,
    failed,
    withheld,
    repeated,
    clashes: clashes.map((c) => ({
      server: c.tool.server,
      tool: c.tool.tool,
      name: c.name,
      with: c.with,
    })),
  };
}

/**
 * The most tools one request offers: OpenAI refuses more ("array too long"). The pack's
 * servers' tools past it are left out, the later servers' and listings' first.
 */
export const MAX_TOOLS = 128;

/**
 * The pack's MCP tools for one turn, as tools the runner takes. A server that failed to
 * start is logged; the turn goes on with the rest. A failure the hub has warned about
 * already is noted at debug: a server that stays down costs one warning per failed start,
 * not one per turn. The tools a listing leaves out (a name clash, past MAX_TOOLS) are
 * logged when the listing is new, in one line each: a thousand tools cost one line, not
 * a line per tool on every turn.
 */
export async function packMcpTools(deps: {
  hub: McpHub;
  servers: readonly McpServerConfig[];
  taken: Iterable<string>;
  signal: AbortSignal;
  log: Logger;
  /** Whoever answers takes images: a result's images are shown to it, else described. */
  acceptsImages: boolean;
  /** How many core tools the turn offers besides these (they count against MAX_TOOLS). */
  coreTools: number;
}): Promise<SchemaTool[]> {
  const { hub, servers, log } = deps;
  const named = await namedMcpTools(hub, servers, deps.taken, deps.signal);
  const { failed, clashes } = named;
  const room = Math.max(0, MAX_TOOLS - deps.coreTools);
  const tools = named.tools.slice(0, room);
  for (const { server, reason, logged } of failed)
    log[logged ? 'debug' : 'warn'](
      { event: 'mcp_server_failed', server, reason },
      `MCP server ${server} is not available: ${reason}`,
    );
  if (!named.repeated) logLeftOut(log, named.tools.slice(room), clashes);
  const byName = new Map(servers.map((s) => [s.name, s]));
  // One budget for all the tools of the turn: a model without images gets none.
  const images = deps.acceptsImages ? turnImageBudget() : undefined;
  return tools.map((tool) => schemaTool(hub, byName.get(tool.server)!, tool, images));
}

function logLeftOut(
  log: Logger,
  tooMany: readonly (McpTool & { name: string })[],
  clashes: readonly McpClash[],
): void {
  if (tooMany.length > 0) {
    const names = tooMany.map((t) => `${t.server}/${t.tool}`);
    log.warn(
      {
        event: 'mcp_tool_refused',
        count: names.length,
        tools: names.slice(0, MAX_NAMED),
        reason: `too many tools: a request takes at most ${MAX_TOOLS}, core tools included`,
      },
      `${names.length} MCP tool${names.length === 1 ? '' : 's'} left out: too many tools (${namesOf(names)})`,
    );
  }
  for (const clash of clashes)
    log.warn(
      { event: 'mcp_tool_clash', ...clash },
      `MCP tool ${clash.server}/${clash.tool} left out: its name ${clash.name} is taken by ${clash.with}`,
    );
}

/** A refusal line names this many tools at most, and counts the rest. */
const MAX_NAMED = 100;

function schemaTool(
  hub: McpHub,
  server: McpServerConfig,
  tool: McpTool & { name: string },
  images: TurnImageBudget | undefined,
): SchemaTool {
  return {
    name: tool.name,
    description: tool.description.trim() || `${tool.tool} (MCP server ${server.name})`,
    parameters: parametersOf(tool.inputSchema),
    // SPEC §17: only the server's own read-only hint makes a call safe to run unasked.
    effect: tool.annotations?.readOnlyHint === true ? 'read' : 'external',
    untrusted: () => `mcp ${server.name}/${tool.tool}`,
    async run(args, signal) {
      const result = await hub.call(server, tool.tool, args, signal);
      if (result.isError) throw new ToolError(resultText(result) || 'the tool reported an error');
      const shown = images ? result.images.filter((image) => images.take(image)) : [];
      const text = resultText(result, shown);
      return shown.length > 0 ? { text, images: shown } : text;
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
 * What the model reads: the text parts, then a line per image, which says whether the image
 * is shown to it (after the results, see agent/tool-images.ts) or only described.
 */
export function resultText(result: McpResult, shown: readonly McpImage[] = []): string {
  const lines = result.images.map((image) => describeImage(image, shown.includes(image)));
  return [result.text, ...lines].filter((part) => part !== '').join('\n');
}

/** Like the hub's line for other parts it does not pass on (result.ts). */
function describeImage(image: McpImage, shown: boolean): string {
  return `[image: ${image.mimeType}, ${bytesOf(image)} bytes, ${shown ? 'shown to you after the tool results' : 'not shown'}]`;
}

function bytesOf(image: McpImage): number {
  const padding = image.data.endsWith('==') ? 2 : image.data.endsWith('=') ? 1 : 0;
  return Math.floor((image.data.length * 3) / 4) - padding;
}
