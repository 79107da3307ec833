import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { createConnection, type McpConnection } from './connection.ts';
import { type Deadline, startDeadline } from './deadline.ts';
import { describeError } from './describe-error.ts';
import { describeFlood, type Flood, type FloodLimits, ServerFlooded } from './flood-meter.ts';
import type { OrphanGuard } from './orphan-guard.ts';
import { logExit, logFlooding, logStartFailed, startFailure, withStderr } from './server-log.ts';
import {
  type Availability,
  begin,
  closed,
  flooded,
  healthy,
  holds,
  initialState,
  lost,
  relistBegun,
  relisted,
  retryIn,
  started,
  startFailed,
  toolsChanged,
} from './server-phase.ts';
import { allowedTools, listAll } from './tool-list.ts';
import type { McpServerConfig } from './types.ts';

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

export type { Availability } from './server-phase.ts';

/**
 * One pack's one server: started on first use (concurrent callers share the start), bounded
 * by `timeoutMs` on the clock, marked down when its connection closes, and started again on
 * the next use — after a backoff once it has failed more than once in a row. Its one state
 * is a `RunnerState` (server-phase.ts), changed only by the transitions there; this file
 * holds the effects: spawning, listing, stopping and the log lines.
 */
export function createServerRunner(config: McpServerConfig, deps: ServerDeps) {
  const log = deps.log.child({ pack: config.pack, server: config.name });
  let state = initialState();
  const stopping = new Set<Promise<void>>();

  const stop = (connection: McpConnection) => {
    const done = connection.stop(deps.closeGraceMs).finally(() => stopping.delete(done));
    stopping.add(done);
    return done;
  };
  const within = (what: string) =>
    startDeadline(
      deps.clock,
      config.timeoutMs,
      () => new Error(`it did not ${what} within ${config.timeoutMs} ms`),
    );

  function onClosed(connection: McpConnection): void {
    const pid = connection.pid();
    if (pid !== undefined) deps.guard.untrack(pid);
    if (connection.isStopping()) return;
    lose(connection, () => withStderr('the server exited', connection));
  }

  /**
   * The server wrote more than satchel reads for `flood.seconds` seconds in a row: one line,
   * it is stopped, and the next use starts it again after a backoff (a flood counts as a
   * failure, like a failed start). A start it floods during fails with this reason.
   */
  function onFlood(connection: McpConnection, flood: Flood): void {
    if (connection.isStopping() || connection.isClosed()) return;
    const why = `it flooded satchel (${describeFlood(flood)}) and was stopped`;
    const was = state;
    const now = deps.clock.now();
    state = flooded(state, { connection, now, reason: () => why });
    if (state === was) return;
    logFlooding(log, connection, flood, retryIn(state, now));
    if (was.phase.tag === 'starting') was.phase.deadline.abort(new ServerFlooded(why));
    void stop(connection);
  }

  /** The running server is gone: the next use starts it again, after a backoff if it keeps failing. */
  function lose(connection: McpConnection, why: () => string): boolean {
    const was = state;
    const now = deps.clock.now();
    state = lost(state, { connection, now, reason: why });
    if (state === was) return false;
    logExit(log, connection, why, retryIn(state, now));
    return true;
  }

  /** A start that failed or timed out: the reason, the log line and the backoff. */
  async function failStart(
    connection: McpConnection | undefined,
    cause: unknown,
  ): Promise<Availability> {
    const now = deps.clock.now();
    const why = await startFailure(connection, cause, deps.redact);
    state = startFailed(state, { connection, now, reason: () => why });
    logStartFailed(log, connection, why, retryIn(state, now));
    return { ok: false, reason: why, logged: true };
  }

  /** Makes the connection and starts it; the phase is `starting` until it answers. */
  function start(): Promise<Availability> {
    let connection: McpConnection;
    try {
      connection = createConnection(config, {
        parentEnv: deps.parentEnv,
        onSpawn: (pid) => deps.guard.track(pid),
        onClose: () => onClosed(connection),
        onToolsChanged: () => {
          if (!connection.isStopping()) state = toolsChanged(state, connection);
        },
        redact: deps.redact,
        flood: { limits: deps.flood, clock: deps.clock },
        onFlood: (flood) => onFlood(connection, flood),
      });
    } catch (error) {
      // A URL that does not parse, say: a failed start like any other, never a throw.
      return failStart(undefined, error);
    }
    const deadline = within('start');
    const attempt = connectAndList(connection, deadline);
    state = begin(state, { connection, deadline, attempt });
    return attempt;
  }

  async function connectAndList(
    connection: McpConnection,
    deadline: Deadline,
  ): Promise<Availability> {
    const began = deps.clock.now();
    try {
      await deadline.bound(connection.connect(deadline.signal));
      const listed = await deadline.bound(listAll(connection.client, deadline.signal, log));
      if (connection.isClosed()) throw new Error('the server exited');
      const tools = allowedTools(listed, config, log);
      const was = state;
      state = started(state, { connection, tools });
      // Closed (or flooded) as the listing came in: this start is over, nothing of it stays.
      if (state === was) {
        void stop(connection);
        return answerMovedOn();
      }
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
      if (!holds(state.phase, 'starting', connection)) return answerMovedOn();
      return await failStart(connection, deadline.cause(error));
    } finally {
      deadline.clear();
    }
  }

  /** What a start or re-list answers once the phase moved on without it (a close, a flood). */
  function answerMovedOn(): Availability {
    const { phase } = state;
    if (phase.tag === 'backing-off') return { ok: false, reason: phase.reason(), logged: true };
    return shuttingDown();
  }

  /**
   * Reads the tool list of a running server again (it announced a change), with the
   * allow-list and checks of a start, bounded by `timeoutMs`. A listing that fails keeps
   * the previous list until the next announcement: a server slow to list must not slow
   * every turn.
   */
  function relist(connection: McpConnection): Promise<Availability> {
    const deadline = within('list its tools');
    const attempt = listAgain(connection, deadline);
    state = relistBegun(state, { deadline, attempt });
    return attempt;
  }

  async function listAgain(connection: McpConnection, deadline: Deadline): Promise<Availability> {
    try {
      const listed = await deadline.bound(listAll(connection.client, deadline.signal, log));
      if (holds(state.phase, 'relisting', connection)) {
        const tools = allowedTools(listed, config, log);
        state = relisted(state, { connection, tools });
        log.info({ event: 'mcp_tools_changed', tools: tools.length }, 'MCP server tools changed');
      }
    } catch (error) {
      const was = state;
      state = relisted(state, { connection });
      if (state !== was && !connection.isClosed())
        log.warn(
          {
            event: 'mcp_tools_relist_failed',
            reason: describeError(deadline.cause(error), deps.redact),
          },
          'MCP server tool list not read again; the previous one is kept',
        );
    } finally {
      deadline.clear();
    }
    // A change announced while listing waits for the next use: a server that announces one
    // with every listing must not keep this use re-listing forever.
    const { phase } = state;
    if (phase.tag === 'ready' && phase.connection === connection && !connection.isClosed())
      return { ok: true, connection, tools: phase.tools };
    return ensure();
  }

  /** The server, started when it is not running (or the reason it is not available). */
  function ensure(): Promise<Availability> {
    const { phase } = state;
    switch (phase.tag) {
      case 'closed':
        return Promise.resolve(shuttingDown());
      case 'starting':
      case 'relisting':
        return phase.attempt;
      case 'ready':
        if (phase.connection.isClosed()) return start();
        if (phase.stale) return relist(phase.connection);
        return Promise.resolve({ ok: true, connection: phase.connection, tools: phase.tools });
      case 'backing-off': {
        const now = deps.clock.now();
        if (now >= phase.until) return start();
        const seconds = Math.ceil((phase.until - now) / 1000);
        // Both ways here (a failed start, an exit) have logged the failure.
        const why = `${phase.reason()} (next try in ${seconds} s)`;
        return Promise.resolve({ ok: false, reason: why, logged: true });
      }
      case 'idle':
        return start();
    }
  }

  return {
    config,
    ensure,
    /**
     * The connection failed under a call (an HTTP server that restarted has lost the
     * session, say): it is closed, and the next use connects afresh.
     */
    drop(connection: McpConnection, error: unknown): void {
      if (lose(connection, () => `the connection failed: ${describeError(error, deps.redact)}`))
        void stop(connection);
    },
    /** A call went through: the server is healthy again, a later crash restarts at once. */
    healthy(): void {
      state = healthy(state);
    },
    /** Aborts a start or re-list under way, stops the server, and waits until it is gone. */
    async close(): Promise<void> {
      const { phase } = state;
      state = closed(state);
      if (phase.tag === 'starting' || phase.tag === 'relisting')
        phase.deadline.abort(new Error('satchel is shutting down'));
      if (phase.tag === 'starting') await phase.attempt;
      else if (phase.tag === 'ready' || phase.tag === 'relisting') void stop(phase.connection);
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
