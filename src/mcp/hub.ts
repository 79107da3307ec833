import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type Clock, systemClock } from '../core/clock.ts';
import { ToolError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { untilAborted } from './abortable.ts';
import { DEFAULT_CLOSE_GRACE_MS, NO_SDK_TIMEOUT_MS } from './connection.ts';
import { describeError } from './describe-error.ts';
import { DEFAULT_FLOOD_LIMITS, type FloodLimits } from './flood-meter.ts';
import { createOrphanGuard } from './orphan-guard.ts';
import { createPinGate, type GateResult } from './pin-gate.ts';
import type { McpPinStore } from './pins.ts';
import { toMcpResult } from './result.ts';
import { createServerRunner, type ServerRunner } from './server.ts';
import type {
  McpHub,
  McpResult,
  McpServerConfig,
  McpTool,
  McpToolsOfPack,
  WithheldTool,
} from './types.ts';

/** Checked loosely: a content part of a type this code does not know is summarised, not fatal. */
const LooseCallResult = z
  .object({ content: z.array(z.unknown()).optional(), isError: z.boolean().optional() })
  .passthrough();

export interface McpHubOptions {
  log: Logger;
  /** Times starts, calls (timeout_ms) and backoff (default: the system clock). */
  clock?: Clock;
  /** satchel's environment: only PATH, HOME, the locale and the like reach a server. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long a stopping server has to exit before SIGKILL (default 3000 ms). */
  closeGraceMs?: number;
  /** Stop the servers even when satchel is killed with SIGKILL (default true; see orphan-guard.ts). */
  orphanGuard?: boolean;
  /**
   * Removes the packs' secrets (SPEC §15) from a server's stderr, error descriptions, reasons
   * and tool results before they are cut, logged or shown (default: keeps text as it is).
   */
  redact?: (text: string) => string;
  /**
   * The servers' tool pins (SPEC §17): a listed tool that differs from its pin is withheld.
   * Without it every allowed tool is offered.
   */
  pins?: McpPinStore;
  /** How much a stdio server may write per second before it is throttled, then stopped. */
  flood?: Partial<FloodLimits>;
}

/** The hub behind a pack's `mcp:` servers (SPEC §13): lazy starts, restarts, calls, shutdown. */
export function createMcpHub(options: McpHubOptions): McpHub {
  const guard = options.orphanGuard === false ? noGuard : createOrphanGuard();
  const deps = {
    log: options.log,
    clock: options.clock ?? systemClock,
    parentEnv: options.env ?? process.env,
    guard,
    closeGraceMs: options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
    redact: options.redact ?? ((text: string) => text),
    flood: { ...DEFAULT_FLOOD_LIMITS, ...options.flood },
  };
  const { redact } = deps;
  const runners = new Map<string, { fingerprint: string; runner: ServerRunner }>();
  const retired = new Set<Promise<void>>();
  let closed = false;
  const gate = options.pins
    ? createPinGate({ store: options.pins, log: options.log, clock: deps.clock })
    : undefined;
  /** The listings `tools` has answered with: a new one is logged once (see McpToolsOfPack). */
  const answered = new WeakSet<readonly McpTool[]>();

  /** What the pins let through of a server's current listing. */
  function pinned(config: McpServerConfig, listing: McpTool[], firstSight: boolean): GateResult {
    return gate?.check(config, listing, firstSight) ?? { offered: listing, withheld: [] };
  }

  /** Each pack has its own servers; a changed entry (a pack reloaded) gets a fresh one. */
  function runnerFor(config: McpServerConfig): ServerRunner {
    const key = `${config.pack}\u0000${config.name}`;
    const fingerprint = JSON.stringify(config);
    const known = runners.get(key);
    if (known?.fingerprint === fingerprint) return known.runner;
    if (known) {
      const done = known.runner.close().finally(() => retired.delete(done));
      retired.add(done);
    }
    const runner = createServerRunner(config, deps);
    runners.set(key, { fingerprint, runner });
    return runner;
  }

  return {
    async tools(servers, signal): Promise<McpToolsOfPack> {
      signal.throwIfAborted();
      if (closed) return { tools: [], failed: servers.map((s) => shutDown(s.name)) };
      const states = await untilAborted(
        Promise.all(servers.map((config) => runnerFor(config).ensure())),
        signal,
      );
      const tools: McpTool[] = [];
      const failed: McpToolsOfPack['failed'] = [];
      const withheld: WithheldTool[] = [];
      let fresh = false;
      states.forEach((state, i) => {
        if (!state.ok) {
          failed.push({
            server: servers[i]!.name,
            reason: redact(state.reason),
            logged: state.logged,
          });
          return;
        }
        const first = !answered.has(state.tools);
        answered.add(state.tools);
        fresh ||= first;
        const pins = pinned(servers[i]!, state.tools, first);
        tools.push(...pins.offered);
        withheld.push(...pins.withheld);
      });
      const repeated = !fresh && tools.length + withheld.length > 0;
      return {
        tools,
        failed,
        ...(withheld.length > 0 ? { withheld } : {}),
        ...(repeated ? { repeated: true as const } : {}),
      };
    },

    async call(config, tool, args, signal): Promise<McpResult> {
      signal.throwIfAborted();
      if (closed)
        throw new ToolError(`The MCP server ${config.name} is stopped: satchel is shutting down.`);
      const runner = runnerFor(config);
      const state = await untilAborted(runner.ensure(), signal);
      if (!state.ok)
        throw new ToolError(
          redact(`The MCP server ${config.name} is not available: ${state.reason}.`),
        );
      // A listing first seen here is logged by the next turn's `tools`, which offers it.
      const { offered, withheld } = pinned(config, state.tools, false);
      if (withheld.some((t) => t.tool === tool))
        throw new ToolError(
          `The MCP tool ${config.name}/${tool} is withheld: it changed since it was pinned, and the owner has not trusted the change.`,
        );
      if (!offered.some((t) => t.tool === tool))
        throw new ToolError(`The MCP server ${config.name} offers no tool ${tool} to this pack.`);
      // The SDK never removes the listener it adds to a request's signal: it gets one of its
      // own for each call, so a turn's signal does not collect them.
      const local = new AbortController();
      const forward = () => local.abort(signal.reason);
      signal.addEventListener('abort', forward, { once: true });
      // timeout_ms runs on satchel's clock, not the SDK's timer: expired, the request is
      // cancelled with the error the SDK's own timeout gives, the server told alike.
      const overdue = deps.clock.setTimeout(
        () => local.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out')),
        config.timeoutMs,
      );
      let raw: unknown;
      try {
        raw = await state.connection.client.request(
          { method: 'tools/call', params: { name: tool, arguments: args } },
          LooseCallResult,
          { signal: local.signal, timeout: NO_SDK_TIMEOUT_MS },
        );
      } catch (error) {
        // The SDK has sent the server its cancellation; the registry wants the abort itself.
        if (signal.aborted) throw signal.reason;
        const failure = callError(config, tool, error, state.connection.isClosed(), redact);
        // Not an answer from the server (a JSON-RPC error or a timeout) but a failed request.
        if (config.transport.type === 'http' && !(error instanceof McpError))
          runner.drop(state.connection, error);
        throw failure;
      } finally {
        deps.clock.clearTimeout(overdue);
        signal.removeEventListener('abort', forward);
      }
      runner.healthy();
      // A secret is never shown to the model, even when a server echoes it back.
      const result = toMcpResult(raw, config, tool);
      return { ...result, text: redact(result.text) };
    },

    async close(): Promise<void> {
      closed = true;
      await Promise.all([...[...runners.values()].map((r) => r.runner.close()), ...retired]);
      runners.clear();
      guard.close();
    },
  };
}

function callError(
  config: McpServerConfig,
  tool: string,
  error: unknown,
  exited: boolean,
  redact: (text: string) => string,
): ToolError {
  const where = `The MCP tool ${config.name}/${tool}`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return new ToolError(`${where} did not answer within ${config.timeoutMs} ms (timeout_ms).`);
  if (exited || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed))
    return new ToolError(
      `${where} failed: the server exited during the call; it is restarted on the next use.`,
    );
  return new ToolError(`${where} failed: ${describeError(error, redact)}`);
}

const shutDown = (server: string) => ({ server, reason: 'satchel is shutting down' });

const noGuard = { track() {}, untrack() {}, close() {} };
