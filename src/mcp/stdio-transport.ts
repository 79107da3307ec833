import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLineSplitter } from './line-splitter.ts';

/**
 * Each server runs in a process group of its own, so that whatever it started (a helper, a
 * worker) is stopped with it: a signal to the group reaches them all. Not on Windows.
 */
const GROUPS = process.platform !== 'win32';
/** After its stdin closed, how long a server has to exit before SIGTERM, then SIGKILL. */
const EOF_GRACE_MS = 2000;
/** After a server exited by itself, how long what is left of its group has before SIGKILL. */
const LEFTOVER_GRACE_MS = 1000;
const OPEN_BRACE = 0x7b;

export interface StdioServerParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The most one message may take; a longer line is an error that closes the transport. */
  maxBufferSize: number;
}

export interface StdioHooks {
  /** A chunk of the server's stderr (read as it comes: a full pipe would block the server). */
  onStderr(chunk: Buffer): void;
  /** A line on stdout that is not a JSON-RPC message: counted, never parsed further. */
  onJunkLine(): void;
  onNotification(): void;
  /** Whether a notification with this method is handled (others are dropped unchecked). */
  wants(method: string): boolean;
}

export type StdioStream = 'stdout' | 'stderr';

export interface StdioTransport extends Transport {
  /** The server process, once spawned. */
  pid(): number | undefined;
  /** Settles when stderr has ended (its last lines come after the exit, through a pipe). */
  stderrEnded: Promise<void>;
  /** Stops reading a stream for now (a throttled flood), or reads it again. */
  pause(stream: StdioStream): void;
  resume(stream: StdioStream): void;
  /** Stops reading the server for good: it is being stopped, and a flooder gets EPIPE. */
  deafen(): void;
  /** Sends `signal` to the server's process group (to the server alone on Windows). */
  signal(signal: NodeJS.Signals): void;
}

/**
 * The SDK's stdio client transport, done so that a server costs satchel bounded work: one
 * line split per chunk of stdout, a cheap first-byte check before any JSON parse, no error
 * per junk line, stderr handed on as chunks — and the server in its own process group
 * (the SDK's transport cannot spawn one).
 */
export function createStdioTransport(params: StdioServerParams, hooks: StdioHooks): StdioTransport {
  let child: ChildProcess | undefined;
  let pid: number | undefined;
  let exited = false;
  let closed = false;
  let endStderr = () => {};
  const stderrEnded = new Promise<void>((resolve) => {
    endStderr = resolve;
  });
  const transport: StdioTransport = {
    pid: () => pid,
    stderrEnded,
    start,
    send,
    close,
    pause: (stream) => streamOf(stream)?.pause(),
    resume: (stream) => {
      const readable = streamOf(stream);
      if (readable && !readable.destroyed) readable.resume();
    },
    deafen() {
      child?.stdout?.destroy();
      child?.stderr?.destroy();
    },
    signal(signal) {
      if (pid === undefined) return;
      try {
        process.kill(GROUPS ? -pid : pid, signal);
      } catch {
        // The group is gone already.
      }
    },
  };
  const streamOf = (stream: StdioStream): Readable | null | undefined =>
    stream === 'stdout' ? child?.stdout : child?.stderr;

  const lines = createLineSplitter(params.maxBufferSize, (line) => onLine(line));

  function onLine(line: Buffer): void {
    let start = 0;
    while (start < line.length && (line[start] === 0x20 || line[start] === 0x09)) start++;
    if (line[start] !== OPEN_BRACE) {
      hooks.onJunkLine();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.toString('utf8'));
    } catch {
      hooks.onJunkLine();
      return;
    }
    const method = notificationMethod(parsed);
    if (method !== undefined) {
      hooks.onNotification();
      // Nobody listens to it (a log message, say): it would only be checked and dropped.
      if (!hooks.wants(method)) return;
    }
    const checked = JSONRPCMessageSchema.safeParse(parsed);
    if (!checked.success) {
      hooks.onJunkLine();
      return;
    }
    const message = checked.data;
    try {
      transport.onmessage?.(message);
    } catch (error) {
      transport.onerror?.(error as Error);
    }
  }

  function onStdout(chunk: Buffer): void {
    try {
      lines.push(chunk);
    } catch (error) {
      transport.onerror?.(error as Error);
      void close();
    }
  }

  function start(): Promise<void> {
    if (child) throw new Error('the stdio transport is started already');
    return new Promise((resolve, reject) => {
      const proc = spawn(params.command, params.args, {
        env: params.env,
        cwd: params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: GROUPS,
        shell: false,
        windowsHide: true,
      });
      child = proc;
      proc.on('error', (error) => {
        reject(error);
        transport.onerror?.(error);
      });
      proc.on('spawn', () => {
        pid = proc.pid;
        resolve();
      });
      proc.on('exit', () => {
        exited = true;
        leftovers();
        // A throttled stream must be read to its end, or the close never comes.
        transport.resume('stdout');
        transport.resume('stderr');
      });
      proc.on('close', () => {
        endStderr();
        if (closed) return;
        closed = true;
        transport.onclose?.();
      });
      proc.stdin?.on('error', (error) => transport.onerror?.(error));
      proc.stdout?.on('data', onStdout);
      proc.stdout?.on('error', (error) => transport.onerror?.(error));
      proc.stderr?.on('data', (chunk: Buffer) => hooks.onStderr(chunk));
      proc.stderr?.on('error', () => {});
      proc.stderr?.once('end', endStderr);
      proc.stderr?.once('close', endStderr);
    });
  }

  /** The server is gone; what it started is not to outlive it (SIGTERM, then SIGKILL). */
  function leftovers(): void {
    if (!GROUPS) return;
    transport.signal('SIGTERM');
    setTimeout(() => transport.signal('SIGKILL'), LEFTOVER_GRACE_MS).unref();
  }

  function send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = child?.stdin;
      if (!stdin || closed || exited) return reject(new Error('Not connected'));
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin; a server still running after 2 s gets SIGTERM, after 4 s SIGKILL (its group). */
  async function close(): Promise<void> {
    const proc = child;
    if (!proc || exited || closed) return;
    try {
      proc.stdin?.end();
    } catch {
      // Closed already.
    }
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (await settlesWithin(gone, EOF_GRACE_MS)) return;
      transport.signal(signal);
    }
  }

  return transport;
}

/** The method of a JSON-RPC notification (a method and no id), else undefined. */
function notificationMethod(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || 'id' in parsed) return undefined;
  const method = (parsed as { method?: unknown }).method;
  return typeof method === 'string' ? method : undefined;
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
