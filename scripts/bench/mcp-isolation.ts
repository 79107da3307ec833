/**
 * The MCP hub with the stdio fixture server (test/fixtures/mcp): what a pack's first turn
 * pays to start a server (spawn, `initialize`, `tools/list`), what a warm call costs, and
 * whether a server that hangs at start holds up another pack's server: while pack A's
 * server hangs, pack B's `tools()` and first `call()` are timed against B alone. Also what a
 * turn pays for a server that has just failed (its backoff answers at once).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../src/core/ports.ts';
import { createMcpHub } from '../../src/mcp/hub.ts';
import type { McpHub, McpServerConfig } from '../../src/mcp/types.ts';
import { p50, p95, until } from './stats.ts';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/mcp/stdio-server.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const idle = new AbortController().signal;

export interface McpIsolation {
  /** A fresh hub's `tools()` for one stdio server, per run. */
  coldStartMs: number[];
  /** `call(echo)` on a running server. */
  warmCallMs: number[];
  /** Pack B's first `tools()` + `call()`, alone and while pack A's server hangs at start. */
  packB: { aloneMs: number[]; whileAHangsMs: number[] };
  /** Whether A's start was still pending when B had its answers (it must be). */
  aStillHanging: boolean;
  /** A's failed start (timeout `aTimeoutMs`), then the next turn's `tools()` in its backoff. */
  aTimeoutMs: number;
  aFailedAfterMs: number;
  aBackoffAnswerMs: number;
}

function server(pack: string, mode = '', timeoutMs = 30_000, env = {}): McpServerConfig {
  return {
    pack,
    name: 'fx',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [FIXTURE],
      env: { ...(mode ? { MCP_FIXTURE_MODE: mode } : {}), ...env },
      cwd: REPO,
    },
    timeoutMs,
    maxOutputChars: 20_000,
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** Pack B's first turn: its tools, then one call. */
async function firstTurn(hub: McpHub, b: McpServerConfig): Promise<number> {
  const { ms } = await timed(async () => {
    const { failed } = await hub.tools([b], idle);
    if (failed.length > 0) throw new Error(`pack B failed: ${failed[0]?.reason}`);
    await hub.call(b, 'add', { a: 1, b: 2 }, idle);
  });
  return ms;
}

export async function measureMcpIsolation(
  options: { runs?: number; warmCalls?: number; aTimeoutMs?: number } = {},
): Promise<McpIsolation> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bench-mcp-'));
  const runs = options.runs ?? 10;
  const warmCalls = options.warmCalls ?? 300;
  const aTimeoutMs = options.aTimeoutMs ?? 2000;

  const coldStartMs: number[] = [];
  const aloneMs: number[] = [];
  const whileAHangsMs: number[] = [];
  let aStillHanging = true;
  for (let i = 0; i < runs; i++) {
    const cold = createMcpHub({ log: silent });
    coldStartMs.push((await timed(() => cold.tools([server('b')], idle))).ms);
    await cold.close();

    const alone = createMcpHub({ log: silent });
    aloneMs.push(await firstTurn(alone, server('b')));
    await alone.close();

    const shared = createMcpHub({ log: silent });
    let aDone = false;
    const startLog = path.join(dir, `a-${i}`);
    const a = shared
      .tools([server('a', 'hang-start', 30_000, { MCP_FIXTURE_START_LOG: startLog })], idle)
      .finally(() => {
        aDone = true;
      });
    // A is hanging once its process is up (its start-up CPU is not B's to share).
    await until(() => (existsSync(startLog) ? true : undefined), "A's process");
    whileAHangsMs.push(await firstTurn(shared, server('b')));
    if (aDone) aStillHanging = false;
    await shared.close();
    await a;
  }

  const warm = createMcpHub({ log: silent });
  const b = server('b');
  await warm.tools([b], idle);
  const warmCallMs: number[] = [];
  for (let i = 0; i < warmCalls; i++)
    warmCallMs.push((await timed(() => warm.call(b, 'echo', { text: `hello ${i}` }, idle))).ms);
  await warm.close();

  const failing = createMcpHub({ log: silent });
  const broken = server('a', 'hang-start', aTimeoutMs);
  const failed = await timed(() => failing.tools([broken], idle));
  const again = await timed(() => failing.tools([broken], idle));
  if (failed.value.failed.length === 0 || again.value.failed.length === 0)
    throw new Error('the hanging server did not fail');
  await failing.close();
  rmSync(dir, { recursive: true, force: true });

  return {
    coldStartMs,
    warmCallMs,
    packB: { aloneMs, whileAHangsMs },
    aStillHanging,
    aTimeoutMs,
    aFailedAfterMs: failed.ms,
    aBackoffAnswerMs: again.ms,
  };
}

export const summary = (xs: number[]) => ({ p50: p50(xs), p95: p95(xs) });
