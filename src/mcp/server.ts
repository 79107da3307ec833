import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { untilAborted } from './abortable.ts';
import { backoffMs } from './backoff.ts';
import { createConnection, type McpConnection } from './connection.ts';
import { describeError } from './describe-error.ts';
import { describeFlood, type Flood, type FloodLimits, ServerFlooded } from './flood-meter.ts';
import type { OrphanGuard } from './orphan-guard.ts';
import { allowedTools, listAll } from './tool-list.ts';
import type { McpServerConfig, McpTool } from './types.ts';

/** How long a closed server's last stderr lines are waited for (they name the reason). */
const STDERR_WAIT_MS = 1000;

export interface ServerDeps {
  log: Logger;
  clock: Clock;
  parentEnv: Readonly<Record<string, string | undefined>>;
  guard: OrphanGuard;
  closeGraceMs: number;
  /** Removes the packs' secrets from what a server says before it is cut, logged or shown. */
  redact: (text: string) => string;
  /** How much a stdio server may write per second before it is throttled, then stopped. */
  flood: FloodLimits;
}

export type Availability =
  | { ok: true; connection: McpConnection; tools: McpTool[] }
  | { ok: false; reason: string; logged: boolean };

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
  /** The server announced a changed tool list: the next use reads it again. */
  let toolsChanged = false;
  let refreshing: Promise<Availability> | undefined;
  let abortRefresh: ((reason: unknown) => void) | undefined;
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

  /**
   * The server wrote more than satchel reads for `flood.seconds` seconds in a row: one line,
   * it is stopped, and the next use starts it again after a backoff (a flood counts as a
   * failure, like a failed start). A start it floods during fails with this reason.
   */
  function flooded(connection: McpConnection, flood: Flood): void {
    if (connection.isStopping() || connection.isClosed()) return;
    strikes++;
    const wait = backoffMs(strikes);
    retryAt = deps.clock.now() + wait;
    const why = `it flooded satchel (${describeFlood(flood)}) and was stopped`;
    reason = () => why;
    log.warn(
      {
        event: 'mcp_server_flooding',
        pid: connection.pid(),
        kind: flood.kind,
        perSecond: flood.perSecond,
        limit: flood.limit,
        seconds: flood.seconds,
        restartInMs: wait,
      },
      'MCP server flooded satchel; stopped',
    );
    if (connection === current) {
      current = undefined;
      state = 'down';
    } else abortStart?.(new ServerFlooded(why));
    void stop(connection);
  }

  /** The running server is gone: the next use starts it again, after a backoff if it keeps failing. */
  function markDown(connection: McpConnection, why: () => string): void {
    current = undefined;
    strikes++;
    const wait = backoffMs(strikes, 1);
    retryAt = deps.clock.now() + wait;
    state = 'down';
    reason = why;
    // This exit's own reason (read once its last stderr lines are in): a start that fails
    // meanwhile changes `reason`, not what this line says.
    void connection.stderrDrained(STDERR_WAIT_MS).then(() =>
      log.warn(
        {
          event: 'mcp_server_exited',
          pid: connection.pid(),
          reason: why(),
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
    const why = withStderr(
      `it could not be started: ${describeError(cause, deps.redact)}`,
      connection,
    );
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
    return { ok: false, reason: why, logged: true };
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
        onToolsChanged: () => {
          if (!connection.isStopping()) toolsChanged = true;
        },
        redact: deps.redact,
        flood: { limits: deps.flood, clock: deps.clock },
        onFlood: (flood) => flooded(connection, flood),
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
      toolsChanged = false;
      await untilAborted(connection.connect(signal), signal);
      const listed = await untilAborted(listAll(connection.client, signal, log), signal);
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
      if ((state as State) === 'closed') return shuttingDown();
      const cause = controller.signal.aborted ? controller.signal.reason : undefined;
      if (cause instanceof ServerFlooded) {
        // `flooded` has logged it and set the backoff.
        state = 'down';
        return { ok: false, reason: cause.message, logged: true };
      }
      return await startFailed(
        connection,
        controller.signal.aborted ? controller.signal.reason : error,
      );
    } finally {
      deps.clock.clearTimeout(timer);
      abortStart = undefined;
    }
  }

  /**
   * Reads the tool list of a running server again (it announced a change), with the
   * allow-list and checks of a start, bounded by `timeoutMs`. A listing that fails keeps
   * the previous list until the next announcement: a server slow to list must not slow
   * every turn.
   */
  async function relist(connection: McpConnection): Promise<Availability> {
    toolsChanged = false;
    const controller = new AbortController();
    abortRefresh = (why) => controller.abort(why);
    const timer = deps.clock.setTimeout(
      () => controller.abort(new Error(`it did not list its tools within ${config.timeoutMs} ms`)),
      config.timeoutMs,
    );
    try {
      const signal = controller.signal;
      const listed = await untilAborted(listAll(connection.client, signal, log), signal);
      if (connection === current) {
        tools = allowedTools(listed, config, log);
        log.info({ event: 'mcp_tools_changed', tools: tools.length }, 'MCP server tools changed');
      }
    } catch (error) {
      if (connection === current && !connection.isClosed())
        log.warn(
          {
            event: 'mcp_tools_relist_failed',
            reason: describeError(
              controller.signal.aborted ? controller.signal.reason : error,
              deps.redact,
            ),
          },
          'MCP server tool list not read again; the previous one is kept',
        );
    } finally {
      deps.clock.clearTimeout(timer);
      abortRefresh = undefined;
      refreshing = undefined;
    }
    // A change announced while listing waits for the next use: a server that announces one
    // with every listing must not keep this use re-listing forever.
    if (connection === current && !connection.isClosed() && state === 'ready')
      return { ok: true, connection, tools };
    return ensure();
  }

  /** The server, started when it is not running (or the reason it is not available). */
  function ensure(): Promise<Availability> {
    if (state === 'closed') return Promise.resolve(shuttingDown());
    if (refreshing) return refreshing;
    if (state === 'ready' && current && !current.isClosed()) {
      if (!toolsChanged) return Promise.resolve({ ok: true, connection: current, tools });
      refreshing = relist(current);
      return refreshing;
    }
    if (starting) return starting;
    const now = deps.clock.now();
    if ((state === 'failed' || state === 'down') && now < retryAt) {
      const seconds = Math.ceil((retryAt - now) / 1000);
      // Both ways here (a failed start, an exit) have logged the failure.
      const why = `${reason()} (next try in ${seconds} s)`;
      return Promise.resolve({ ok: false, reason: why, logged: true });
    }
    const attempt = start().finally(() => {
      starting = undefined;
    });
    starting = attempt;
    return attempt;
  }

  return {
    config,
    ensure,
    /**
     * The connection failed under a call (an HTTP server that restarted has lost the
     * session, say): it is closed, and the next use connects afresh.
     */
    drop(connection: McpConnection, error: unknown): void {
      if (connection !== current) return;
      markDown(connection, () => `the connection failed: ${describeError(error, deps.redact)}`);
      void stop(connection);
    },
    /** A call went through: the server is healthy again, a later crash restarts at once. */
    healthy(): void {
      strikes = 0;
    },
    async close(): Promise<void> {
      state = 'closed';
      abortStart?.(new Error('satchel is shutting down'));
      abortRefresh?.(new Error('satchel is shutting down'));
      if (starting) await starting;
      if (current) void stop(current);
      current = undefined;
      await Promise.all([...stopping]);
    },
  };
}

export type ServerRunner = ReturnType<typeof createServerRunner>;

const shuttingDown = (): Availability => ({
  ok: false,
  reason: 'satchel is shutting down',
  logged: false,
});

function withStderr(reason: string, connection: McpConnection | undefined): string {
  const line = connection?.stderr?.lastLine();
  return line ? `${reason} (stderr: ${line})` : reason;
}
