import type { z } from 'zod';
import type { CoreTool } from '../packs/manifest.ts';

/**
 * A tool the model can call. Tools are built by factories bound to one turn's pack (its
 * storage and nothing else). `run` receives arguments already validated by `schema`, and
 * returns the text the model reads. A ToolError's message is shown to the model as an
 * error result; any other failure is reported to it as an internal error.
 */
export interface Tool<Args = unknown> {
  name: CoreTool;
  description: string;
  schema: z.ZodType<Args>;
  /** Waits for the user's answer: the turn's deadline does not count that time. */
  waitsForUser?: boolean;
  run(args: Args, signal: AbortSignal): Promise<string>;
}

export { ToolError } from '../core/errors.ts';

/** Helps a factory return a typed tool as the registry's untyped one. */
export function defineTool<Args>(tool: Tool<Args>): Tool {
  return tool as unknown as Tool;
}
