import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import type { Logger } from '../core/ports.ts';
import { NO_SDK_TIMEOUT_MS } from './connection.ts';
import type { McpServerConfig, McpTool } from './types.ts';

/** A schema larger than this (as JSON) is refused: it would cost every turn its size. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** A server that lists more pages than this is cut off there (a broken cursor loops). */
export const MAX_LIST_PAGES = 50;
/**
 * A listing is cut after this many tools: no request offers more than 128, and a server
 * whose cursor never ends must not fill memory and the log with its pages.
 */
export const MAX_LISTED_TOOLS = 1000;
/** A refusal line names this many tools at most, and counts the rest. */
const MAX_NAMED = 100;
/** Only the shape that matters is checked: one bad tool entry must not cost the rest. */
const LooseToolList = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/**
 * The tools of one server's listing that reach the pack: those the allow-list names (all
 * when there is none), each with an object schema of at most MAX_SCHEMA_CHARS. The refused
 * tools are logged in one line for the listing (`mcp_tool_refused`), never an error: the
 * rest of the server still works. `raw` is what the server sent, unchecked (one broken
 * entry must not cost the others).
 */
export function allowedTools(
  raw: readonly unknown[],
  config: McpServerConfig,
  log: Logger,
): McpTool[] {
  const allow = config.tools ? new Set(config.tools) : undefined;
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  const refused: { tool: string; reason: string }[] = [];
  const refuse = (tool: string, reason: string) => void refused.push({ tool, reason });
  for (const entry of raw) {
    const name = toolName(entry);
    if (name === undefined) {
      refuse('?', 'the listing has an entry without a name');
      continue;
    }
    if (allow && !allow.has(name)) continue;
    if (seen.has(name)) {
      refuse(name, 'the server lists this name twice; the first is kept');
      continue;
    }
    seen.add(name);
    const problem = schemaProblem((entry as { inputSchema?: unknown }).inputSchema);
    if (problem) {
      refuse(name, problem);
      continue;
    }
    const description = (entry as { description?: unknown }).description;
    tools.push({
      server: config.name,
      tool: name,
      description: typeof description === 'string' ? description : '',
      inputSchema: (entry as { inputSchema: Record<string, unknown> }).inputSchema,
      ...annotationsOf(entry),
    });
  }
  if (refused.length > 0)
    log.warn(
      {
        event: 'mcp_tool_refused',
        pack: config.pack,
        server: config.name,
        count: refused.length,
        tools: refused.slice(0, MAX_NAMED),
      },
      `${refused.length} MCP tool${refused.length === 1 ? '' : 's'} left out of the listing`,
    );
  for (const name of allow ?? []) {
    if (!seen.has(name))
      log.warn(
        { event: 'mcp_tool_missing', pack: config.pack, server: config.name, tool: name },
        'allow-listed MCP tool not offered by the server',
      );
  }
  return tools;
}

/** The hint that makes a tool's effect `read` (SPEC §17); other annotations are not used. */
function annotationsOf(entry: unknown): Pick<McpTool, 'annotations'> {
  const hint = (entry as { annotations?: { readOnlyHint?: unknown } }).annotations?.readOnlyHint;
  return typeof hint === 'boolean' ? { annotations: { readOnlyHint: hint } } : {};
}

function toolName(entry: unknown): string | undefined {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** Why a tool's input schema cannot be sent to a model, or undefined when it can. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return 'its input schema is not a JSON object';
  if ((schema as { type?: unknown }).type !== 'object')
    return 'its input schema does not describe an object';
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS)
    return `its input schema is ${size} characters, more than ${MAX_SCHEMA_CHARS}`;
  return undefined;
}

/**
 * The pages of a server's `tools/list`, unchecked; `signal` bounds it. A listing is cut at
 * MAX_LISTED_TOOLS tools or MAX_LIST_PAGES pages, with one warning (`mcp_tool_refused`).
 */
export async function listAll(
  client: Client,
  signal: AbortSignal,
  log?: Logger,
): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor ? { cursor } : {} },
      LooseToolList,
      { signal, timeout: NO_SDK_TIMEOUT_MS },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor && tools.length <= MAX_LISTED_TOOLS) return tools;
    if (cursor && pages < MAX_LIST_PAGES && tools.length < MAX_LISTED_TOOLS) continue;
    log?.warn(
      {
        event: 'mcp_tool_refused',
        kept: Math.min(tools.length, MAX_LISTED_TOOLS),
        pages,
        reason: `the listing goes on past ${MAX_LISTED_TOOLS} tools or ${MAX_LIST_PAGES} pages`,
      },
      'MCP tool listing cut: the rest of its tools are left out',
    );
    return tools.slice(0, MAX_LISTED_TOOLS);
  }
}
