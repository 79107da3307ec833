/**
 * A chatty stdio server (issue 34, item 5): one that floods stderr, writes non-JSON lines to
 * stdout or sends notifications in a loop, as fast as satchel reads. satchel throttles it,
 * then stops it with one `mcp_server_flooding` line and starts it again only after the
 * backoff, while another server keeps answering. (Its CPU is measured by
 * scripts/bench-mcp-flood.ts, not here.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_FLOOD_LIMITS } from '../../src/mcp/flood-meter.ts';
import { createMcpHub } from '../../src/mcp/hub.ts';
import type { McpHub } from '../../src/mcp/types.ts';
import { fixtureServer, idle, recordingLog, startedPids, waitUntilGone } from './support.ts';

/** Two seconds in a row at a limit is a flood here (five by default): the tests run faster. */
const SECONDS = 2;
const FLOOD_WAIT = { timeout: 40_000, interval: 100 };

let dir: string;
let hub: McpHub | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-flood-'));
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['stderr', 'flood-stderr', DEFAULT_FLOOD_LIMITS.stderrBytes],
  ['stdout_junk', 'flood-junk', DEFAULT_FLOOD_LIMITS.junkLines],
  ['notifications', 'flood-notify', DEFAULT_FLOOD_LIMITS.notifications],
])('a server that floods satchel (%s)', (kind, mode, limit) => {
  it('is stopped with one log line, started again only after a growing backoff, and another server keeps answering', async () => {
    const recorded = recordingLog();
    hub = createMcpHub({ log: recorded.log, closeGraceMs: 1000, flood: { seconds: SECONDS } });
    const starts = path.join(dir, 'starts');
    const noisy = fixtureServer({
      name: 'noisy',
      env: { MCP_FIXTURE_MODE: mode, MCP_FIXTURE_START_LOG: starts },
    });
    const quiet = fixtureServer({ pack: 'diary', name: 'quiet' });
    const flooding = () => recorded.events('mcp_server_flooding');

    await hub.tools([noisy], idle());
    // While it floods (throttled), another pack's server answers.
    await hub.tools([quiet], idle());
    expect((await hub.call(quiet, 'echo', { text: 'during' }, idle())).text).toBe('during');

    await vi.waitFor(() => expect(flooding()).toHaveLength(1), FLOOD_WAIT);
    const [first] = startedPids(starts);
    await waitUntilGone(first!);
    expect(flooding()[0]).toMatchObject({
      pack: 'notes',
      server: 'noisy',
      pid: first,
      kind,
      limit,
      seconds: SECONDS,
      perSecond: expect.any(Number),
      restartInMs: 1000,
    });
    expect(flooding()[0]!.perSecond as number).toBeGreaterThanOrEqual(limit);
    expect((await hub.call(quiet, 'echo', { text: 'after' }, idle())).text).toBe('after');

    // The next uses start it again once its backoff is over; it floods again, and the
    // backoff grows.
    await vi.waitFor(async () => {
      const { failed } = await hub!.tools([noisy], idle());
      if (failed[0]) expect(failed[0].reason).toMatch(/flooded satchel/);
      expect(flooding()).toHaveLength(2);
    }, FLOOD_WAIT);
    expect(flooding()[1]).toMatchObject({ kind, restartInMs: 2000 });
    const pids = startedPids(starts);
    expect(pids).toHaveLength(2);
    await waitUntilGone(pids[1]!);
    // One line per flood: no exit or failed start is reported for it besides.
    const warnings = recorded.lines.filter(
      (l) => l.server === 'noisy' && l.event !== 'mcp_server_started',
    );
    expect(warnings.map((l) => l.event)).toEqual(['mcp_server_flooding', 'mcp_server_flooding']);
    expect((await hub.call(quiet, 'echo', { text: 'still' }, idle())).text).toBe('still');
  }, 90_000);
});
