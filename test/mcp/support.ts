import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import type { Clock } from '../../src/core/clock.ts';
import type { Logger } from '../../src/core/ports.ts';
import { DEFAULT_FLOOD_LIMITS } from '../../src/mcp/flood-meter.ts';
import type { ServerDeps } from '../../src/mcp/server.ts';
import type { McpServerConfig } from '../../src/mcp/types.ts';

export const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const REPO = path.resolve(path.dirname(FIXTURE), '../../..');

/** A pack's stdio entry for the fixture server, ready to run. */
export function fixtureServer(
  overrides: Partial<Omit<McpServerConfig, 'transport'>> & { env?: Record<string, string> } = {},
): McpServerConfig {
  const { env = {}, ...rest } = overrides;
  return {
    pack: 'notes',
    name: 'fx',
    transport: { type: 'stdio', command: process.execPath, args: [FIXTURE], env, cwd: REPO },
    timeoutMs: 30_000,
    maxOutputChars: 20_000,
    ...rest,
  };
}

export type LogLine = Record<string, unknown>;

/** A logger that keeps every line (with its child bindings) for the test to read. */
export function recordingLog(): { log: Logger; lines: LogLine[]; events(name: string): LogLine[] } {
  const lines: LogLine[] = [];
  const make = (bindings: LogLine): Logger => {
    const push = (o: object) => void lines.push({ ...bindings, ...(o as LogLine) });
    return {
      debug: push,
      info: push,
      warn: push,
      error: push,
      child: (b) => make({ ...bindings, ...b }),
    };
  };
  return { log: make({}), lines, events: (name) => lines.filter((l) => l.event === name) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone (bounded: the machine may be loaded). */
export async function waitUntilGone(pid: number, timeout = 20_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (isAlive(pid)) throw new Error(`process ${pid} still running`);
    },
    { timeout, interval: 50 },
  );
}

/** The pids the fixture logged at each start (MCP_FIXTURE_START_LOG). */
export function startedPids(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

export const idle = () => new AbortController().signal;

/** A server runner's deps for tests that drive it directly (no orphan guard, no redaction). */
export function runnerDeps(log: Logger, clock: Clock): ServerDeps {
  return {
    log,
    redact: (text: string) => text,
    clock,
    parentEnv: {},
    guard: { track() {}, untrack() {}, close() {} },
    closeGraceMs: 1000,
    flood: DEFAULT_FLOOD_LIMITS,
  };
}
