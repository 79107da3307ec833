import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import type { Logger } from '../core/ports.ts';
import { NO_SDK_TIMEOUT_MS } from './connection.ts';
import type { McpServerConfig, McpTool } from './types.ts';

/** A schema larger than this (as JSON) is refused: it would cost every turn its size. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** A server that lists more pages than this is cut off there (a broken cursor loops). */
const MAX_LIST_PAGES = 50;
/** Only the shape that matters is checked: one bad tool entry must not cost the rest. */
const LooseToolList = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/**
 * The tools of one server's listing that reach the pack: those the allow-list names (all
 * when there is none), each with an object schema of at most MAX_SCHEMA_CHARS. A refused
 * tool is logged (`mcp_tool_refused`), never an error: the rest of the server still works.
 * `raw` is what the server sent, unchecked (one broken entry must not cost the others).
 */
export function allowedTools(
  raw: readonly unknown[],
  config: McpServerConfig,
  log: Logger,
): McpTool[] {
  const allow = config.tools ? new Set(config.tools) : undefined;
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  const refuse = (tool: string, reason: string) =>
    log.warn(
      { event: 'mcp_tool_refused', pack: config.pack, server: config.name, tool, reason },
      'MCP tool left out',
    );
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
    });
  }
  for (const name of allow ?? []) {
    if (!seen.has(name))
      log.warn(
        { event: 'mcp_tool_missing', pack: config.pack, server: config.name, tool: name },
        'allow-listed MCP tool not offered by the server',
      );
  }
  return tools;
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

/** Every page of a server's `tools/list`, unchecked; `signal` bounds it. */
export async function listAll(client: Client, signal: AbortSignal): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor ? { cursor } : {} },
      LooseToolList,
      { signal, timeout: NO_SDK_TIMEOUT_MS },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
