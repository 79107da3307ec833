/**
 * A scripted stand-in for `createConnection` (src/mcp/connection.ts), for the runner's
 * tests that must hold a step open at a chosen point (a listing, a close during a start).
 * A test file mocks the module with it:
 *
 *   vi.mock('../../src/mcp/connection.ts', async (original) => ({
 *     ...(await original<typeof import('../../src/mcp/connection.ts')>()),
 *     createConnection: (await import('./fake-connection.ts')).createFakeConnection,
 *   }));
 */
import type { ConnectionHooks, McpConnection } from '../../src/mcp/connection.ts';
import type { McpServerConfig } from '../../src/mcp/types.ts';

export interface FakePlan {
  /** The `initialize` handshake; resolves at once unless given. */
  connect?: (signal: AbortSignal) => Promise<void>;
  /** The `n`-th `tools/list` of this connection (from 0); the tools named `echo` unless given. */
  list?: (n: number) => Promise<{ tools: unknown[] }>;
  /** Its stderr drains only when the test calls `drainStderr`. */
  holdStderr?: boolean;
}

export interface FakeConnection {
  hooks: ConnectionHooks;
  /** How many times the runner asked it to stop. */
  stops: number;
  isClosed(): boolean;
  /** The server exits by itself. */
  exit(): void;
  drainStderr(): void;
}

/** What each next connection does (taken in order; none left: the defaults), and those made. */
export const fakes = { plans: [] as FakePlan[], made: [] as FakeConnection[] };

/** A tool as a server lists it. */
export const listed = (name: string) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: 'object', properties: {} },
});

/** A promise the test settles by hand. */
export function gate<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function createFakeConnection(
  _config: McpServerConfig,
  hooks: ConnectionHooks,
): McpConnection {
  const plan = fakes.plans.shift() ?? {};
  const stderr = gate<void>();
  if (!plan.holdStderr) stderr.resolve();
  let closed = false;
  let stopping = false;
  let lists = 0;
  const close = () => {
    if (closed) return;
    closed = true;
    hooks.onClose();
  };
  const fake: FakeConnection = {
    hooks,
    stops: 0,
    isClosed: () => closed,
    exit: close,
    drainStderr: () => stderr.resolve(),
  };
  fakes.made.push(fake);
  const list = plan.list ?? (async () => ({ tools: [listed('echo')] }));
  return {
    client: { request: () => list(lists++) },
    pid: () => undefined,
    stderr: undefined,
    closed: new Promise(() => {}),
    isClosed: () => closed,
    isStopping: () => stopping,
    lastError: () => undefined,
    stderrDrained: () => stderr.promise,
    connect: (signal: AbortSignal) => plan.connect?.(signal) ?? Promise.resolve(),
    async stop() {
      fake.stops++;
      stopping = true;
      close();
    },
  } as unknown as McpConnection;
}
