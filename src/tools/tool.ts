import type { z } from 'zod';
import type { Changed } from '../core/changes.ts';
import type { Effect, UntrustedSource } from '../core/trust.ts';
import type { ImageInput } from '../core/types.ts';
import type { CoreTool } from '../packs/manifest.ts';

/**
 * A tool the model can call. Tools are built by factories bound to one turn's pack (its
 * storage and nothing else). `run` receives arguments already validated by `schema`, and
 * returns the text the model reads, or that text with the lasting change it made (the turn's
 * receipt is built from these, SPEC §18). A ToolError's message is shown to the model as an
 * error result; any other failure is reported to it as an internal error.
 */
export interface Tool<Args = unknown> {
  name: CoreTool;
  description: string;
  schema: z.ZodType<Args>;
  /** Waits for the user's answer: the turn's deadline does not count that time. */
  waitsForUser?: boolean;
  /** What a call does (SPEC §17): fixed, or read from its arguments (`memory` reads or writes). */
  effect: Effect | ((args: Args) => Effect);
  /**
   * Its results are outside text: the runner puts them in an envelope naming this source and
   * the turn is tainted from then on (web_fetch, web_search).
   */
  untrusted?: (args: Args) => UntrustedSource;
  /**
   * The URL a call reads (web_fetch): in a tainted turn, one that did not appear verbatim in
   * the turn's input or results waits for the owner (a built URL can carry data out).
   */
  fetches?: (args: Args) => string;
  run(args: Args, signal: AbortSignal): Promise<string | Changed>;
}

/**
 * A tool described by a JSON Schema from elsewhere (an MCP server's tool): the runner only
 * checks that the arguments are a JSON object, and whoever runs it validates the rest.
 */
export interface SchemaTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object, sent to the model as it is. */
  parameters: Record<string, unknown>;
  /** What a call does: an MCP tool is `external` unless its server marks it `readOnlyHint`. */
  effect?: Effect;
  /** Its results are outside text (an MCP tool's): enveloped, and they taint the turn. */
  untrusted?: (args: Record<string, unknown>) => UntrustedSource;
  /** The text the model reads, or that and images it sees after the results (this turn). */
  run(
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<string | { text: string; images: ImageInput[] }>;
}

/** What the tool runner takes: the core tools (zod) and schema tools side by side. */
export type AnyTool = Tool | SchemaTool;

export { ToolError } from '../core/errors.ts';

/** The text the model reads of a core tool's result. */
export const resultText = (output: string | Changed): string =>
  typeof output === 'string' ? output : output.text;

/** Helps a factory return a typed tool as the registry's untyped one. */
export function defineTool<Args>(tool: Tool<Args>): Tool {
  return tool as unknown as Tool;
}
