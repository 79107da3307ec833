import { afterEach, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../src/mcp/hub.ts';
import type { McpHub, McpServerConfig } from '../../src/mcp/types.ts';
import { type McpHttpFixture, startMcpHttpFixture } from '../fixtures/mcp/http-server.ts';
import { idle, recordingLog } from './support.ts';

let hub: McpHub | undefined;
let fixture: McpHttpFixture | undefined;
afterEach(async () => {
  await hub?.close();
  await fixture?.close();
  hub = undefined;
  fixture = undefined;
});

function httpServer(url: string, headers: Record<string, string> = {}): McpServerConfig {
  return {
    pack: 'notes',
    name: 'web',
    transport: { type: 'http', url, headers },
    timeoutMs: 30_000,
    maxOutputChars: 20_000,
  };
}

describe('the MCP hub over streamable HTTP', () => {
  it('lists and calls tools, sending the configured headers on every request', async () => {
    fixture = await startMcpHttpFixture({ requireHeaders: { 'X-Api-Key': 'k-123' } });
    const recorded = recordingLog();
    hub = createMcpHub({ log: recorded.log });
    const server = httpServer(fixture.url, { 'X-Api-Key': 'k-123' });

    const { tools, failed } = await hub.tools([server], idle());
    expect(failed).toEqual([]);
    expect(tools.map((t) => t.tool)).toEqual(['echo', 'add']);
    expect(await hub.call(server, 'add', { a: 20, b: 22 }, idle())).toEqual({
      text: '42',
      images: [],
      isError: false,
    });

    expect(fixture.requests.length).toBeGreaterThanOrEqual(3);
    expect(fixture.requests.every((r) => r.headers['x-api-key'] === 'k-123')).toBe(true);
    expect(fixture.requests.some((r) => r.refused)).toBe(false);
  });

  it('reports a server that refuses the request as failed, with the reason, and backs off', async () => {
    fixture = await startMcpHttpFixture({ requireHeaders: { 'X-Api-Key': 'k-123' } });
    const recorded = recordingLog();
    hub = createMcpHub({ log: recorded.log });
    const server = httpServer(fixture.url, { 'X-Api-Key': 'wrong' });

    const { tools, failed } = await hub.tools([server], idle());

    expect(tools).toEqual([]);
    expect(failed).toMatchObject([
      {
        server: 'web',
        reason:
          'it could not be started: HTTP 401: Error POSTing to endpoint: missing or wrong header',
      },
    ]);
    expect(recorded.events('mcp_start_failed')).toHaveLength(1);
    await expect(hub.call(server, 'add', { a: 1, b: 1 }, idle())).rejects.toThrow(
      /web is not available: .*401.*next try in 1 s/,
    );
    expect(fixture.requests.every((r) => r.refused)).toBe(true);
  });

  it('fails a call with a ToolError when the server has gone away', async () => {
    fixture = await startMcpHttpFixture();
    hub = createMcpHub({ log: recordingLog().log });
    const server = httpServer(fixture.url);
    await hub.tools([server], idle());
    await fixture.close();
    fixture = undefined;

    await expect(hub.call(server, 'echo', { text: 'anyone?' }, idle())).rejects.toMatchObject({
      code: 'tool_error',
      message: expect.stringMatching(/^The MCP tool web\/echo failed: /),
    });
  });

  it('connects afresh after a stateful server lost the session (it restarted)', async () => {
    fixture = await startMcpHttpFixture({ stateful: true });
    const recorded = recordingLog();
    hub = createMcpHub({ log: recorded.log });
    const server = httpServer(fixture.url);
    await hub.tools([server], idle());
    expect((await hub.call(server, 'echo', { text: 'one' }, idle())).text).toBe('one');
    const session = fixture.requests.at(-1)?.headers['mcp-session-id'];
    expect(session).toEqual(expect.any(String));

    fixture.forgetSessions();
    await expect(hub.call(server, 'echo', { text: 'two' }, idle())).rejects.toThrow(
      /web\/echo failed: HTTP 404/,
    );
    expect(recorded.events('mcp_server_exited')).toMatchObject([
      { server: 'web', reason: expect.stringMatching(/^the connection failed: HTTP 404/) },
    ]);

    expect((await hub.call(server, 'echo', { text: 'three' }, idle())).text).toBe('three');
    const renewed = fixture.requests.at(-1)?.headers['mcp-session-id'];
    expect(renewed).toEqual(expect.any(String));
    expect(renewed).not.toBe(session);
  });

  it('ends a stateful session on close (DELETE with its id)', async () => {
    fixture = await startMcpHttpFixture({ stateful: true });
    hub = createMcpHub({ log: recordingLog().log });
    await hub.tools([httpServer(fixture.url)], idle());
    const session = fixture.requests.at(-1)?.headers['mcp-session-id'];
    expect(session).toEqual(expect.any(String));

    await hub.close();
    hub = undefined;

    const deletes = fixture.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => r.headers['mcp-session-id'])).toEqual([session]);
  });

  it('closes anyway when the server refuses to end the session or never answers', async () => {
    for (const endSession of ['refuse', 'hang'] as const) {
      fixture = await startMcpHttpFixture({ stateful: true, endSession });
      hub = createMcpHub({ log: recordingLog().log, closeGraceMs: 200 });
      await hub.tools([httpServer(fixture.url)], idle());

      await hub.close();
      hub = undefined;

      expect(fixture.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
      await fixture.close();
      fixture = undefined;
    }
  });

  it('sends no DELETE to a server that keeps no sessions', async () => {
    fixture = await startMcpHttpFixture();
    hub = createMcpHub({ log: recordingLog().log });
    await hub.tools([httpServer(fixture.url)], idle());
    await hub.close();
    hub = undefined;
    expect(fixture.requests.some((r) => r.method === 'DELETE')).toBe(false);
  });
});
