/**
 * MCP flood benchmark (not a test): what a chatty stdio server costs satchel. For each kind
 * of flood (stderr, non-JSON lines on stdout, notifications) the fixture server floods as
 * fast as satchel reads; satchel's CPU (process.cpuUsage) and the server's (from /proc, on
 * Linux) are measured over the same window, with a warm call to a second server timed
 * meanwhile. See docs/RELIABILITY.md.
 *
 *   npx tsx scripts/bench-mcp-flood.ts     (part of: npm run bench)
 *   BENCH_FLOOD_UNTHROTTLED=1 npx tsx scripts/bench-mcp-flood.ts     (reading alone)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../src/core/ports.ts';
import { createRedactor, redactSecretShapes } from '../src/core/redact.ts';
import { createMcpHub } from '../src/mcp/hub.ts';
import type { McpServerConfig } from '../src/mcp/types.ts';
import { markdownTable, ms, p50, sleep } from './bench/stats.ts';

const FIXTURE = fileURLToPath(new URL('../test/fixtures/mcp/stdio-server.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const WINDOW_MS = Number(process.env.BENCH_FLOOD_MS ?? 8000);
/** BENCH_FLOOD_UNTHROTTLED=1: no flood limits, what reading a flood costs by itself. */
const UNTHROTTLED = process.env.BENCH_FLOOD_UNTHROTTLED === '1';
const KINDS = ['flood-stderr', 'flood-junk', 'flood-notify'] as const;
const idle = new AbortController().signal;
/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

function server(name: string, env: Record<string, string>): McpServerConfig {
  return {
    pack: 'bench',
    name,
    transport: { type: 'stdio', command: process.execPath, args: [FIXTURE], env, cwd: REPO },
    timeoutMs: 30_000,
    maxOutputChars: 20_000,
  };
}

function countingLog(onFlood: () => void): { log: Logger; events: string[] } {
  const events: string[] = [];
  const push = (o: object) => {
    const event = (o as { event?: unknown }).event;
    if (typeof event === 'string') events.push(event);
    if (event === 'mcp_server_flooding') onFlood();
  };
  const log: Logger = { debug: push, info: push, warn: push, error: push, child: () => log };
  return { log, events };
}

/** A process's CPU time so far (ms), or undefined once it is gone (or off Linux). */
function cpuOfPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

async function measure(kind: (typeof KINDS)[number]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bench-flood-'));
  const starts = path.join(dir, 'starts');
  let before = process.cpuUsage();
  let began = performance.now();
  // satchel's CPU from the start of the window until the flood is reported (while throttled).
  let untilStopped: number | undefined;
  const { log, events } = countingLog(() => {
    const used = process.cpuUsage(before);
    untilStopped ??= (used.user + used.system) / 1000 / (performance.now() - began);
  });
  // The redactor satchel's own hub has (default-hub.ts).
  const known = createRedactor(['a-pack-secret-value']);
  const hub = createMcpHub({
    log,
    redact: (text) => redactSecretShapes(known(text)),
    ...(UNTHROTTLED
      ? { flood: { stderrBytes: Infinity, junkLines: Infinity, notifications: Infinity } }
      : {}),
  });
  const quiet = server('quiet', {});
  const noisy = server('noisy', { MCP_FIXTURE_MODE: kind, MCP_FIXTURE_START_LOG: starts });
  await hub.tools([quiet], idle);
  await hub.tools([noisy], idle);
  const pids = existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean) : [];
  const pid = Number(pids[0]);
  const serverCpuAtStart = cpuOfPid(pid) ?? 0;
  let serverCpu = serverCpuAtStart;
  before = process.cpuUsage();
  began = performance.now();
  const callMs: number[] = [];
  while (performance.now() - began < WINDOW_MS) {
    const t = performance.now();
    await hub.call(quiet, 'echo', { text: 'ping' }, idle);
    callMs.push(performance.now() - t);
    serverCpu = cpuOfPid(pid) ?? serverCpu;
    await sleep(200);
  }
  const used = process.cpuUsage(before);
  const wall = performance.now() - began;
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    kind,
    satchelCpu: (used.user + used.system) / 1000 / wall,
    untilStopped,
    serverCpu: (serverCpu - serverCpuAtStart) / wall,
    callP50: p50(callMs),
    floodLines: events.filter((e) => e === 'mcp_server_flooding').length,
  };
}

const pct = (x: number | undefined) => (x === undefined ? '—' : `${(x * 100).toFixed(0)} %`);
const rows: string[][] = [];
for (const kind of KINDS) {
  const r = await measure(kind);
  rows.push([
    r.kind,
    pct(r.satchelCpu),
    pct(r.untilStopped),
    pct(r.serverCpu),
    ms(r.callP50, 2),
    String(r.floodLines),
  ]);
}
console.log(
  `MCP flood, ${WINDOW_MS} ms window from the flooding server's start${UNTHROTTLED ? ', no flood limits' : ''}\n`,
);
console.log(
  markdownTable(
    [
      'flood',
      'satchel CPU',
      'satchel CPU until stopped',
      'server CPU',
      "other server's call, p50",
      'mcp_server_flooding',
    ],
    rows,
  ),
);
