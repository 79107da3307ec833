import { z } from 'zod';
import type { Change } from '../core/changes.ts';
import type { Logger, ToolRunner, ToolSpec } from '../core/ports.ts';
import type { ImageInput, ToolCall } from '../core/types.ts';
import type { CoreTool } from '../packs/manifest.ts';
import { createAskUserTool } from './ask-user.ts';
import type { TurnToolContext } from './context.ts';
import { createDbQueryTool } from './db-query.ts';
import { createDbWriteTool } from './db-write.ts';
import { createMemoryTool } from './memory.ts';
import { createMemorySearchTool } from './memory-search.ts';
import { createScheduleTool } from './schedule.ts';
import { createSendMessageTool } from './send-message.ts';
import { createSkillViewTool } from './skill-view.ts';
import { type AnyTool, type Tool, ToolError } from './tool.ts';
import { createTrustGate, type Pause, type TrustGate } from './trust/gate.ts';
import { createWebFetchTool } from './web-fetch.ts';
import { createWebSearchTool } from './web-search.ts';

/**
 * The tools the active pack enables (its `tools` allow-list) that can run here, bound to
 * this turn.
 */
export function packTools(ctx: TurnToolContext): Tool[] {
  const factories: Record<CoreTool, () => Tool> = {
    memory: () => createMemoryTool(ctx),
    skill_view: () => createSkillViewTool(ctx),
    db_query: () => createDbQueryTool(ctx.storage, ctx),
    db_write: () => createDbWriteTool(ctx.storage, ctx.pack.manifest.schema.owned_tables, ctx),
    send_message: () => createSendMessageTool(ctx),
    ask_user: () => createAskUserTool(ctx),
    schedule: () => createScheduleTool(ctx),
    web_fetch: () => createWebFetchTool(ctx.web.fetch),
    web_search: () => createWebSearchTool(ctx.web.search, ctx.usage),
    memory_search: () => createMemorySearchTool(ctx),
  };
  // Without a search provider web_search is not offered at all (SPEC §13): the pack's
  // prompt says what research needs instead (packs/prompt.ts).
  return ctx.pack.manifest.tools
    .filter((name) => name !== 'web_search' || ctx.web.search.provider !== undefined)
    .map((name) => factories[name]());
}

/**
 * Runs the model's tool calls. Arguments are parsed and validated against the tool's schema
 * before it runs (a schema tool's only need to be a JSON object: its server checks the
 * rest); an unknown tool, bad arguments or a failure become an error result the model
 * reads (and a `tool_error` log line). Every call passes the turn's trust gate (SPEC §17):
 * it may wait for the owner, and an untrusted tool's result comes back in its envelope.
 * Only an abort ends the turn.
 */
export function createToolRunner(
  tools: readonly AnyTool[],
  log: Logger,
  gate: TrustGate = openGate(log),
): ToolRunner {
  const byName = new Map(tools.map((t) => [t.name as string, t]));
  const specs: ToolSpec[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: 'parameters' in t ? t.parameters : jsonSchema(t.schema),
  }));

  const shown: { tool: string; images: ImageInput[] }[] = [];
  const changes: Change[] = [];

  /** The tool and its checked arguments; a ToolError says what is wrong with the call. */
  function prepare(call: ToolCall): { tool: AnyTool; args: unknown } {
    const tool = byName.get(call.name);
    if (!tool)
      throw new ToolError(
        `unknown tool "${call.name}"; available: ${[...byName.keys()].join(', ')}`,
      );
    let raw: unknown;
    try {
      raw = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    } catch {
      throw new ToolError('arguments are not valid JSON');
    }
    if ('parameters' in tool) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
        throw new ToolError('arguments must be a JSON object');
      return { tool, args: raw };
    }
    const parsed = tool.schema.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (i) => `${i.path.join('.') || 'arguments'}: ${i.message}`,
      );
      throw new ToolError(`invalid arguments: ${problems.join('; ')}`);
    }
    return { tool, args: parsed.data };
  }

  async function execute(
    call: ToolCall,
    { tool, args }: { tool: AnyTool; args: unknown },
    signal: AbortSignal,
    pause: Pause,
  ): Promise<string> {
    if ('parameters' in tool) {
      const output = await tool.run(args as Record<string, unknown>, signal);
      if (typeof output === 'string') return output;
      if (output.images.length > 0) shown.push({ tool: call.name, images: output.images });
      return output.text;
    }
    const output = await (tool.waitsForUser
      ? pause(() => tool.run(args, signal))
      : tool.run(args, signal));
    if (typeof output === 'string') return output;
    changes.push(output.change);
    return output.text;
  }

  /** A failure as the model reads it: `Error: …`, and a `tool_error` line. */
  function failed(call: ToolCall, error: unknown, signal: AbortSignal): string {
    if (signal.aborted) throw signal.reason;
    const known = error instanceof ToolError;
    log.warn(
      { event: 'tool_error', tool: call.name, known, err: error },
      known ? 'tool refused' : 'tool failed',
    );
    return `Error: ${known ? error.message : 'the tool failed unexpectedly'}`;
  }

  return {
    specs,
    takeImages: () => shown.splice(0),
    changes: () => changes,
    observe: (text, taint) => gate.observe(text, taint),
    stopped: () => gate.stopped(),
    async run(call, signal, pause = (work) => work()) {
      let prepared: { tool: AnyTool; args: unknown } | undefined;
      let result: string;
      try {
        prepared = prepare(call);
        const refused = await gate.admit(call, prepared.tool, prepared.args, signal, pause);
        result = refused ?? (await execute(call, prepared, signal, pause));
      } catch (error) {
        result = failed(call, error, signal);
      }
      return gate.settle(call, prepared?.tool, prepared?.args, result);
    },
  };
}

/** The gate of a runner nobody configured: it never asks, and still envelopes and stops loops. */
function openGate(log: Logger): TrustGate {
  return createTrustGate({
    policy: 'off',
    pack: { name: '', label: '' },
    approver: undefined,
    grants: { has: () => false, grant: () => undefined },
    now: Date.now,
    log,
  });
}

/**
 * A tool schema's JSON Schema, converted once per schema object: the conversion costs about
 * 0.2 ms a tool, and every turn builds its tools anew before the model call.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * zod writes `propertyNames: {type: "string"}` for a record with string keys; a JSON
 * object's keys are strings anyway, so it only costs tokens on every call.
 */
function dropStringKeys({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  const names = jsonSchema.propertyNames as Record<string, unknown> | undefined;
  if (names && Object.keys(names).length === 1 && names.type === 'string')
    delete jsonSchema.propertyNames;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const known = jsonSchemas.get(schema);
  if (known) return known;
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { override: dropStringKeys }) as Record<
    string,
    unknown
  >;
  jsonSchemas.set(schema, rest);
  return rest;
}
