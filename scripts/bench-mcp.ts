/**
 * MCP benchmark (not a test): the hub with the stdio fixture server — cold start, warm call,
 * and pack B's first turn while pack A's server hangs at start. See docs/PERFORMANCE.md and
 * scripts/bench/mcp-isolation.ts.
 *
 *   npx tsx scripts/bench-mcp.ts     (part of: npm run bench)
 */
import { measureMcpIsolation, summary } from './bench/mcp-isolation.ts';
import { markdownTable, ms, p50, table, verdict } from './bench/stats.ts';

/** B's first turn may cost at most this much more while A hangs (noise, not A's timeout). */
const ISOLATION_SLACK_MS = 250;

const result = await measureMcpIsolation();
const cold = summary(result.coldStartMs);
const warm = summary(result.warmCallMs);
const alone = summary(result.packB.aloneMs);
const hanging = summary(result.packB.whileAHangsMs);
const isolated =
  result.aStillHanging && verdict(hanging.p50, alone.p50 + ISOLATION_SLACK_MS) === 'ok'
    ? 'ok'
    : 'MISS';
const backoff = verdict(result.aBackoffAnswerMs, 50);

console.log(`MCP hub, stdio fixture server (${result.coldStartMs.length} runs each)\n`);
console.log(
  table(
    ['what', 'p50', 'p95', 'runs'],
    [
      [
        'cold start: tools() of a fresh server',
        ms(cold.p50),
        ms(cold.p95),
        String(result.coldStartMs.length),
      ],
      ['warm call: call(echo)', ms(warm.p50, 2), ms(warm.p95, 2), String(result.warmCallMs.length)],
      [
        "pack B's first tools() + call(), alone",
        ms(alone.p50),
        ms(alone.p95),
        String(result.packB.aloneMs.length),
      ],
      [
        "pack B's first tools() + call(), while A's server hangs",
        ms(hanging.p50),
        ms(hanging.p95),
        String(result.packB.whileAHangsMs.length),
      ],
    ],
  ),
);
console.log(`\nA's start still pending when B had its answers: ${result.aStillHanging}`);
console.log(
  `A (timeout ${result.aTimeoutMs} ms) failed after ${ms(result.aFailedAfterMs)}; the next turn's tools() in its backoff: ${ms(result.aBackoffAnswerMs, 2)}`,
);
console.log();
console.log(
  markdownTable(
    ['figure', 'measured', 'target', ''],
    [
      [
        'MCP cold start (spawn + initialize + tools/list), p50',
        ms(p50(result.coldStartMs)),
        '—',
        '',
      ],
      ['MCP warm call, p50 / p95', `${ms(warm.p50, 2)} / ${ms(warm.p95, 2)}`, '—', ''],
      [
        "pack B's first MCP turn while pack A's server hangs at start, p50 (B alone)",
        `${ms(hanging.p50)} (${ms(alone.p50)})`,
        `≤ alone + ${ISOLATION_SLACK_MS} ms`,
        isolated,
      ],
      [
        'tools() of a server in its backoff after a failed start',
        ms(result.aBackoffAnswerMs, 2),
        '≤ 50 ms',
        backoff,
      ],
    ],
  ),
);
if (isolated !== 'ok' || backoff !== 'ok') process.exitCode = 1;
