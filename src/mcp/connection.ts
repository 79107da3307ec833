import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../core/clock.ts';
import { serverEnvironment } from './environment.ts';
import { createFloodMeter, type Flood, type FloodKind, type FloodLimits } from './flood-meter.ts';
import { createStderrTail, type StderrTail } from './stderr-tail.ts';
import { createStdioTransport, type StdioTransport } from './stdio-transport.ts';
import type { McpServerConfig } from './types.ts';

/** The longest timer node takes: the SDK's request timer, when the caller bounds the request. */
export const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;
/** How long a stopping server has to exit before SIGKILL, unless the hub is told otherwise. */
export const DEFAULT_CLOSE_GRACE_MS = 3000;
/** After SIGKILL, how long `stop` still waits to see the process gone. */
const KILL_WAIT_MS = 2000;
/** The longest `stop(graceMs)` takes: shutdown waits that long, so the SIGKILL is sent. */
export const stopBoundMs = (graceMs: number) => graceMs + KILL_WAIT_MS;
/** The notifications the client acts on (the SDK's own two, and the tool list's change). */
const HANDLED_NOTIFICATIONS = new Set([
  'notifications/cancelled',
  'notifications/progress',
  ToolListChangedNotificationSchema.shape.method.value,
]);
/** The most one message from a server may take: a little over the largest useful result. */
const MIN_BUFFER_BYTES = 16 * 1024 * 1024;

export interface ConnectionHooks {
  /** satchel's own environment, from which only a minimal part is passed on. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  /** A stdio server's process was spawned (for the orphan guard). */
  onSpawn(pid: number): void;
  /** The connection closed: the process exited (stdio) or the transport gave up. */
  onClose(): void;
  /** The server said its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged(): void;
  /** Removes secrets from the server's stderr before any of it is cut or kept. */
  redact?: (text: string) => string;
  /** How much a stdio server may write per second, on which clock (see flood-meter.ts). */
  flood: { limits: FloodLimits; clock: Clock };
  /** A stdio server stayed at a flood limit: it is no longer read, and is to be stopped. */
  onFlood(flood: Flood): void;
}

/** One live connection to one server, and, for stdio, its process. */
export interface McpConnection {
  client: Client;
  /** The server process (stdio), once spawned. */
  pid(): number | undefined;
  stderr: StderrTail | undefined;
  closed: Promise<void>;
  isClosed(): boolean;
  /** Whether `stop` was asked for: a close that follows is no crash. */
  isStopping(): boolean;
  /** The last error the transport reported (a crash's reason). */
  lastError(): string | undefined;
  /**
   * Waits (at most `ms`) for the rest of a closed server's stderr: it comes through a pipe
   * and may arrive after the close, and its last line is usually the reason.
   */
  stderrDrained(ms: number): Promise<void>;
  /** Spawns or reaches the server and runs the `initialize` handshake; `signal` bounds it. */
  connect(signal: AbortSignal): Promise<void>;
  /**
   * Closes it: an HTTP session is ended first (a DELETE; a server that does not answer
   * within `graceMs`, or refuses, is closed anyway), a process still running after
   * `graceMs` is killed. Waits, bounded.
   */
  stop(graceMs: number): Promise<void>;
}

export function createConnection(config: McpServerConfig, hooks: ConnectionHooks): McpConnection {
  const client = new Client({ name: 'satchel', version: '1.0.0' });
  const { transport, stderr, stderrEnded, stdio } = createTransport(config, hooks);
  let pid: number | undefined;
  let closed = false;
  let stopping = false;
  let lastError: string | undefined;
  let markClosed = () => {};
  const closedPromise = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  client.onclose = () => {
    if (closed) return;
    closed = true;
    markClosed();
    hooks.onClose();
  };
  client.onerror = (error) => {
    lastError = hooks.redact ? hooks.redact(error.message) : error.message;
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onToolsChanged());
  if (stdio) {
    // The pid is known once the process is spawned, before the handshake: a server that
    // hangs in `initialize` must be killable (and guarded) too.
    const start = stdio.start;
    stdio.start = async () => {
      await start();
      pid = stdio.pid();
      if (pid !== undefined) hooks.onSpawn(pid);
    };
  }
  return {
    client,
    pid: () => pid,
    stderr,
    closed: closedPromise,
    isClosed: () => closed,
    isStopping: () => stopping,
    lastError: () => lastError,
    async stderrDrained(ms) {
      await within(stderrEnded, ms);
    },
    async connect(signal) {
      // The caller's signal is the bound (on satchel's clock); the SDK's own timer is off.
      await client.connect(transport, { signal, timeout: NO_SDK_TIMEOUT_MS });
    },
    async stop(graceMs) {
      stopping = true;
      // Before close, which aborts the transport's requests, this DELETE among them.
      if (transport instanceof StreamableHTTPClientTransport && !closed)
        await within(
          transport.terminateSession().catch(() => {}),
          graceMs,
        );
      // The transport ends stdin, then sends SIGTERM after 2 s and SIGKILL after 4 s; a
      // grace shorter than that is enforced here.
      void client.close().catch(() => {});
      if (!stdio || pid === undefined || closed) return;
      if (!(await within(closedPromise, graceMs))) {
        stdio.signal('SIGKILL');
        await within(closedPromise, KILL_WAIT_MS);
      }
      // What the server started is stopped with it, even what outlived its exit.
      stdio.signal('SIGKILL');
    },
  };
}

interface Transports {
  transport: Transport;
  stderr: StderrTail | undefined;
  stderrEnded: Promise<void>;
  stdio?: StdioTransport;
}

function createTransport(config: McpServerConfig, hooks: ConnectionHooks): Transports {
  const spec = config.transport;
  if (spec.type === 'http') {
    const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: { ...spec.headers } },
    });
    return { transport, stderr: undefined, stderrEnded: Promise.resolve() };
  }
  const stderr = createStderrTail(undefined, hooks.redact);
  const streamOf = (kind: FloodKind) => (kind === 'stderr' ? 'stderr' : 'stdout');
  // stdout carries two kinds: it is read again only when neither is held.
  const held = new Set<FloodKind>();
  const meter = createFloodMeter(hooks.flood.limits, hooks.flood.clock, {
    pause(kind) {
      held.add(kind);
      stdio.pause(streamOf(kind));
    },
    resume(kind) {
      held.delete(kind);
      if (![...held].some((other) => streamOf(other) === streamOf(kind)))
        stdio.resume(streamOf(kind));
    },
    flooding(flood) {
      stdio.deafen();
      hooks.onFlood(flood);
    },
  });
  const stdio = createStdioTransport(
    {
      command: spec.command,
      args: [...spec.args],
      env: serverEnvironment(hooks.parentEnv, spec.env),
      cwd: spec.cwd,
      maxBufferSize: Math.max(MIN_BUFFER_BYTES, config.maxOutputChars * 8),
    },
    {
      onStderr(chunk) {
        stderr.push(chunk);
        meter.add('stderr', chunk.length);
      },
      onJunkLine: () => meter.add('stdout_junk', 1),
      onNotification: () => meter.add('notifications', 1),
      wants: (method) => HANDLED_NOTIFICATIONS.has(method),
    },
  );
  void stdio.stderrEnded.then(() => meter.stop());
  return { transport: stdio, stderr, stderrEnded: stdio.stderrEnded, stdio };
}

/** Whether `promise` settled within `ms` (a real-time bound that never keeps node alive). */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}
