/**
 * The seam between a pack's `mcp:` servers (SPEC §13) and the turn: the turn asks the hub
 * for the tools of its pack's servers and calls them; the hub starts, restarts and stops
 * the server processes and connections. Nothing here knows about providers or channels.
 */

/** How satchel reaches one server: a child process on stdio, or streamable HTTP. */
export type McpTransport =
  | {
      type: 'stdio';
      command: string;
      args: readonly string[];
      /** Added to a minimal environment (PATH, HOME…), `${settings.NAME}` already filled in. */
      env: Readonly<Record<string, string>>;
      /** The pack's folder: a relative command or argument is read from there. */
      cwd: string;
    }
  | { type: 'http'; url: string; headers: Readonly<Record<string, string>> };

/** One `mcp:` entry of a pack, ready to run (settings filled in, defaults applied). */
export interface McpServerConfig {
  /** The pack the server belongs to: each pack has its own servers, never shared. */
  pack: string;
  /** The entry's `name`: the `<name>` of `<name>__<tool>`. */
  name: string;
  transport: McpTransport;
  /** The server's tools the pack allows; undefined: all of them. */
  tools?: readonly string[] | undefined;
  /** A start (connect and list tools) or one call longer than this fails (default 30000). */
  timeoutMs: number;
  /** A result longer than this (in characters, all text parts together) is an error. */
  maxOutputChars: number;
}

/** A tool a server offers, and the pack allows. */
export interface McpTool {
  server: string;
  /** The tool's name as the server knows it. */
  tool: string;
  description: string;
  /** The server's JSON Schema of the arguments object, as it sent it. */
  inputSchema: Record<string, unknown>;
  /** The server's hints about the tool: `readOnlyHint: true` makes its effect `read` (SPEC §17). */
  annotations?: { readOnlyHint?: boolean };
}

/**
 * How a listed tool differs from its pin (SPEC §17): new, or its description, schema or
 * read-only mark changed.
 */
export type PinChange =
  | { kind: 'added' }
  | {
      kind: 'changed';
      /** Both texts, when the description changed. */
      description?: { from: string; to: string };
      /** The schema's paths that differ (`properties.text.type`), when the schema changed. */
      schemaKeys?: string[];
      /** The effect its calls had and would have, when the server's `readOnlyHint` changed. */
      effect?: { from: McpEffect; to: McpEffect };
    };

/** An MCP tool's effect: `read` when its server marks it `readOnlyHint: true`. */
export type McpEffect = 'read' | 'external';

/** A tool of a listing that is not offered until the owner trusts its change. */
export interface WithheldTool {
  pack: string;
  server: string;
  tool: string;
  change: PinChange;
  /** The tool as the server lists it now: what `pack trust` pins. */
  current: McpTool;
}

export interface McpImage {
  mimeType: string;
  /** base64 */
  data: string;
}

/** A call's result: its text parts joined, its images, other content summarised in `text`. */
export interface McpResult {
  text: string;
  images: McpImage[];
  /** The server said the call failed (`isError`): the model reads it as an error result. */
  isError: boolean;
}

export interface McpToolsOfPack {
  tools: McpTool[];
  /**
   * Servers that could not be started or listed now; the turn goes on without them.
   * `logged`: the hub has warned about this failure itself (`mcp_start_failed`,
   * `mcp_server_exited`), so a turn that meets it again need not warn once more.
   */
  failed: { server: string; reason: string; logged?: boolean }[];
  /** Tools whose listing differs from their pins: not in `tools` (SPEC §17). */
  withheld?: WithheldTool[];
  /**
   * Every listing among these was answered before (no start or re-listing since): what
   * they leave out has been logged already, so a turn need not log it again. Absent: new.
   */
  repeated?: true;
}

export interface McpHub {
  /**
   * The allowed tools of a pack's servers, starting those not running yet (in parallel,
   * each bounded by its `timeoutMs`). A server that fails is in `failed`, never thrown, and
   * a start that hangs delays only callers for this pack.
   */
  tools(servers: readonly McpServerConfig[], signal: AbortSignal): Promise<McpToolsOfPack>;
  /**
   * Calls one tool of a server that `tools` started (restarting it, with backoff, after a
   * crash). Fails with a ToolError (safe to show the model) when the call fails, times out,
   * returns more than `maxOutputChars` or the server is down; `signal` cancels it (/stop).
   */
  call(
    server: McpServerConfig,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpResult>;
  /** Stops every server and waits for the processes to exit (shutdown). */
  close(): Promise<void>;
}
