import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { untilAborted } from './abortable.ts';
import { backoffMs } from './backoff.ts';
import { createConnection, type McpConnection, NO_SDK_TIMEOUT_MS } from './connection.ts';
import { describeError } from './describe-error.ts';
import type { OrphanGuard } from './orphan-guard.ts';
import { allowedTools } from './tool-list.ts';
import type { McpServerConfig, McpTool } from './types.ts';

/** How long a closed server's last stderr lines are waited for (they name the reason). */
const STDERR_WAIT_MS = 1000;
/** A server that lists more pages than this is cut off there (a broken cursor loops). */
const MAX_LIST_PAGES = 50;
/** Only the shape that matters is checked: one bad tool entry must not cost the rest. */
const LooseToolList = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

export interface ServerDeps {
  log: Logger;
  clock: Clock;
  parentEnv: Readonly<Record<string, string | undefined>>;
  guard: OrphanGuard;
  closeGraceMs: number;
}

export type Availability =
  | { ok: true; connection: McpConnection; tools: McpTool[] }
  | { ok: false; reason: string };

type State = 'idle' | 'starting' | 'ready' | 'failed' | 'down' | 'closed';

/**
 * One pack's one server: started on first use (concurrent callers share the start), bounded
 * by `timeoutMs` on the clock, marked down when its connection closes, and started again on
 * the next use — after a backoff once it has failed more than once in a row.
 */
export function createServerRunner(config: McpServerConfig, deps: ServerDeps) {
  const log = deps.log.child({ pack: config.pack, server: config.name });
  let state: State = 'idle';
  let current: McpConnection | undefined;
  let tools: McpTool[] = [];
  let starting: Promise<Availability> | undefined;
  let abortStart: ((reason: unknown) => void) | undefined;
  let strikes = 0;
  let retryAt = 0;
  let reason = () => '';
  const stopping = new Set<Promise<void>>();

  const stop = (connection: McpConnection) => {
    const done = connection.stop(deps.closeGraceMs).finally(() => stopping.delete(done));
    stopping.add(done);
    return done;
  };

  function onClosed(connection: McpConnection): void {
    const pid = connection.pid();
    if (pid !== undefined) deps.guard.untrack(pid);
    if (connection !== current || connection.isStopping()) return;
    markDown(connection, () => withStderr('the server exited', connection));
  }

  /** The running server is gone: the next use starts it again, after a backoff if it keeps failing. */
  function markDown(connection: McpConnection, why: () => string): void {
    current = undefined;
    strikes++;
    const wait = backoffMs(strikes, 1);
    retryAt = deps.clock.now() + wait;
    state = 'down';
    reason = why;
    void connection.stderrDrained(STDERR_WAIT_MS).then(() =>
      log.warn(
        {
          event: 'mcp_server_exited',
          pid: connection.pid(),
          reason: reason(),
          transportError: connection.lastError(),
          stderr: connection.stderr?.text(),
          restartInMs: wait,
        },
        'MCP server exited',
      ),
    );
  }

  /** A start that failed or timed out: the reason, the log line and the backoff. */
  async function startFailed(
    connection: McpConnection | undefined,
    cause: unknown,
  ): Promise<Availability> {
    strikes++;
    const wait = backoffMs(strikes);
    retryAt = deps.clock.now() + wait;
    state = 'failed';
    if (connection?.isClosed()) await connection.stderrDrained(STDERR_WAIT_MS);
    const why = withStderr(`it could not be started: ${describeError(cause)}`, connection);
    reason = () => why;
    log.warn(
      {
        event: 'mcp_start_failed',
        reason: why,
        stderr: connection?.stderr?.text(),
        retryInMs: wait,
      },
      'MCP server failed to start',
    );
    return { ok: false, reason: why };
  }

  async function start(): Promise<Availability> {
    state = 'starting';
    const began = deps.clock.now();
    let connection: McpConnection;
    try {
      connection = createConnection(config, {
        parentEnv: deps.parentEnv,
        onSpawn: (pid) => deps.guard.track(pid),
        onClose: () => onClosed(connection),
      });
    } catch (error) {
      // A URL that does not parse, say: a failed start like any other, never a throw.
      return await startFailed(undefined, error);
    }
    const controller = new AbortController();
    abortStart = (why) => controller.abort(why);
    const timer = deps.clock.setTimeout(
      () => controller.abort(new Error(`it did not start within ${config.timeoutMs} ms`)),
      config.timeoutMs,
    );
    try {
      const signal = controller.signal;
      await untilAborted(connection.connect(signal), signal);
      const listed = await untilAborted(listAll(connection.client, signal), signal);
      if (connection.isClosed()) throw new Error('the server exited');
      current = connection;
      tools = allowedTools(listed, config, log);
      state = 'ready';
      log.info(
        {
          event: 'mcp_server_started',
          pid: connection.pid(),
          tools: tools.length,
          ms: deps.clock.now() - began,
        },
        'MCP server started',
      );
      return { ok: true, connection, tools };
    } catch (error) {
      void stop(connection);
      if ((state as State) === 'closed') return { ok: false, reason: 'satchel is shutting down' };
      return await startFailed(
        connection,
        controller.signal.aborted ? controller.signal.reason : error,
      );
    } finally {
      deps.clock.clearTimeout(timer);
      abortStart = undefined;
    }
  }

  return {
    config,
    /** The server, started when it is not running (or the reason it is not available). */
    ensure(): Promise<Availability> {
      if (state === 'closed')
        return Promise.resolve({ ok: false, reason: 'satchel is shutting down' });
      if (state === 'ready' && current && !current.isClosed())
        return Promise.resolve({ ok: true, connection: current, tools });
      if (starting) return starting;
      const now = deps.clock.now();
      if ((state === 'failed' || state === 'down') && now < retryAt) {
        const seconds = Math.ceil((retryAt - now) / 1000);
        return Promise.resolve({ ok: false, reason: `${reason()} (next try in ${seconds} s)` });
      }
      const attempt = start().finally(() => {
        starting = undefined;
      });
      starting = attempt;
      return attempt;
    },
    /**
     * The connection failed under a call (an HTTP server that restarted has lost the
     * session, say): it is closed, and the next use connects afresh.
     */
    drop(connection: McpConnection, error: unknown): void {
      if (connection !== current) return;
      markDown(connection, () => `the connection failed: ${describeError(error)}`);
      void stop(connection);
    },
    /** A call went through: the server is healthy again, a later crash restarts at once. */
    healthy(): void {
      strikes = 0;
    },
    async close(): Promise<void> {
      state = 'closed';
      abortStart?.(new Error('satchel is shutting down'));
      if (starting) await starting;
      if (current) void stop(current);
      current = undefined;
      await Promise.all([...stopping]);
    },
  };
}

export type ServerRunner = ReturnType<typeof createServerRunner>;

async function listAll(client: Client, signal: AbortSignal): Promise<unknown[]> {
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

function withStderr(reason: string, connection: McpConnection | undefined): string {
  const line = connection?.stderr?.lastLine();
  return line ? `${reason} (stderr: ${line})` : reason;
}
