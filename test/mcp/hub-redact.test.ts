/**
 * SPEC §15: a secret setting a server quotes in its failure text (its stderr, an error it
 * answers with) is redacted before the hub cuts that text, and in every reason, log line and
 * tool error that leaves the hub: no piece of it, however long, only the redaction mark.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.ts';
import { createMcpHub } from '../../src/mcp/hub.ts';
import { createStderrTail } from '../../src/mcp/stderr-tail.ts';
import type { McpHub } from '../../src/mcp/types.ts';
import { LONG_SECRET, secretFragmentsIn } from '../support/secret-fragments.ts';
import { fixtureServer, idle, recordingLog } from './support.ts';

let hub: McpHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

// Longer than a quoted stderr line or error description (300), and than the kept tail (4096).
const SECRETS = {
  'a long secret': LONG_SECRET,
  'a secret longer than the tail': LONG_SECRET.repeat(14),
};

function open(secret: string) {
  const recorded = recordingLog();
  hub = createMcpHub({ log: recorded.log, closeGraceMs: 1000, redact: createRedactor([secret]) });
  return { hub, ...recorded };
}

describe("a server's stderr tail", () => {
  it('redacts a secret split across chunks, even one longer than the tail, before cutting', () => {
    const secret = LONG_SECRET.repeat(14);
    expect(secret.length).toBeGreaterThan(4096);
    const tail = createStderrTail(4096, createRedactor([secret]));
    tail.push('start\ninvalid key ');
    tail.push(secret.slice(0, 4500));
    tail.push(`${secret.slice(4500)} (rejected)\n`);
    expect(tail.lastLine()).toBe('invalid key [redacted] (rejected)');
    expect(secretFragmentsIn(tail.text(), secret)).toEqual([]);
  });
});

describe.each(Object.entries(SECRETS))('the MCP hub with %s', (_, secret) => {
  it('redacts a server that quotes it on stderr and exits at start', async () => {
    expect(secret.length).toBeGreaterThan(300);
    const { hub, lines } = open(secret);
    const server = fixtureServer({
      env: { MCP_FIXTURE_MODE: 'leak-start', FIXTURE_TOKEN: secret },
    });

    const { failed } = await hub.tools([server], idle());

    expect(failed).toHaveLength(1);
    expect(failed[0]!.reason).toContain('(stderr: fixture: invalid key [redacted])');
    expect(secretFragmentsIn(failed[0]!.reason, secret)).toEqual([]);
    await expect(hub.call(server, 'echo', { text: 'x' }, idle())).rejects.toThrow(
      /invalid key \[redacted\]/,
    );
    await hub.call(server, 'echo', { text: 'x' }, idle()).catch((error: Error) => {
      expect(secretFragmentsIn(error.message, secret)).toEqual([]);
    });
    const logged = JSON.stringify(lines);
    expect(logged).toContain('invalid key [redacted]');
    expect(secretFragmentsIn(logged, secret)).toEqual([]);
  });

  it('redacts a call that fails with an error quoting it', async () => {
    const { hub } = open(secret);
    const server = fixtureServer({ env: { MCP_FIXTURE_MODE: 'leak-call', FIXTURE_TOKEN: secret } });
    await hub.tools([server], idle());

    const error = await hub.call(server, 'echo', { text: 'x' }, idle()).then(
      () => undefined,
      (e: Error) => e,
    );

    expect(error?.message).toBe(
      'The MCP tool fx/echo failed: MCP error -32603: MCP error -32603: invalid key [redacted]',
    );
  });

  it('redacts a tool result that quotes it', async () => {
    const { hub } = open(secret);
    const server = fixtureServer({ env: { FIXTURE_TOKEN: secret } });

    await hub.tools([server], idle());

    expect(await hub.call(server, 'leak_fail', {}, idle())).toEqual({
      text: 'invalid key [redacted]',
      images: [],
      isError: true,
    });
  });
});

describe('the MCP hub with a secret header value Node refuses', () => {
  it("redacts the value Node's header check quotes in its error", async () => {
    const secret = 'line-one-secret\nline-two-secret';
    const { hub, lines } = open(secret);
    const server = {
      ...fixtureServer(),
      transport: {
        type: 'http' as const,
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: `Bearer ${secret}` },
      },
    };

    const { failed } = await hub.tools([server], idle());

    expect(failed).toHaveLength(1);
    expect(failed[0]!.reason).toContain('[redacted]');
    for (const piece of ['line-one-secret', 'line-two-secret']) {
      expect(failed[0]!.reason).not.toContain(piece);
      expect(JSON.stringify(lines)).not.toContain(piece);
    }
  });
});
