import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMcpHub } from '../../src/mcp/hub.ts';
import type { McpHub } from '../../src/mcp/types.ts';
import { fixtureServer, idle, recordingLog, startedPids } from './support.ts';

let dir: string;
let hub: McpHub | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-'));
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function open(env: Record<string, string | undefined> = process.env) {
  const recorded = recordingLog();
  hub = createMcpHub({ log: recorded.log, env, closeGraceMs: 1000 });
  return { hub, ...recorded };
}

describe('the MCP hub over stdio', () => {
  it('starts a server on the first tools() only, once for concurrent callers', async () => {
    const { hub, events } = open();
    const startLog = path.join(dir, 'starts');
    const server = fixtureServer({ env: { MCP_FIXTURE_START_LOG: startLog } });
    expect(startedPids(startLog)).toEqual([]);

    const [a, b] = await Promise.all([hub.tools([server], idle()), hub.tools([server], idle())]);

    expect(startedPids(startLog)).toHaveLength(1);
    expect(a.failed).toEqual([]);
    expect(a.tools.map((t) => t.tool)).toContain('echo');
    expect(b.tools).toEqual(a.tools);
    expect(a.tools.find((t) => t.tool === 'add')).toMatchObject({
      server: 'fx',
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    });
    await hub.tools([server], idle());
    expect(startedPids(startLog)).toHaveLength(1);
    expect(events('mcp_server_started')).toHaveLength(1);
  });

  it('offers only the allow-listed tools and warns about a name the server lacks', async () => {
    const { hub, events } = open();
    const server = fixtureServer({ tools: ['echo', 'add', 'nope'] });

    const { tools } = await hub.tools([server], idle());

    expect(tools.map((t) => t.tool)).toEqual(['echo', 'add']);
    expect(events('mcp_tool_missing')).toMatchObject([
      { pack: 'notes', server: 'fx', tool: 'nope' },
    ]);
    await expect(hub.call(server, 'pid', {}, idle())).rejects.toThrow(/offers no tool pid/);
  });

  it('returns text, images and a line for every other kind of content', async () => {
    const { hub } = open();
    const server = fixtureServer();
    await hub.tools([server], idle());

    expect(await hub.call(server, 'add', { a: 2, b: 40 }, idle())).toEqual({
      text: '42',
      images: [],
      isError: false,
    });
    const image = await hub.call(server, 'image', {}, idle());
    expect(image.text).toBe('a red dot');
    expect(image.images).toEqual([
      { mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) },
    ]);
    expect((await hub.call(server, 'resource', {}, idle())).text).toBe(
      'see the attached notes\n[resource: file:///notes.txt, text/plain]\nline one\nline two',
    );
    expect((await hub.call(server, 'mixed', {}, idle())).text).toBe(
      '[audio: audio/wav, 12 bytes, not shown]\n[resource link: https://example.com/report.pdf]',
    );
    expect(await hub.call(server, 'fail', {}, idle())).toEqual({
      text: 'it failed on purpose',
      images: [],
      isError: true,
    });
  });

  it('refuses a result longer than max_output_chars, naming its length and the limit', async () => {
    const { hub } = open();
    const server = fixtureServer({ maxOutputChars: 5000 });
    await hub.tools([server], idle());

    await expect(hub.call(server, 'flood', { chars: 1_000_000 }, idle())).rejects.toMatchObject({
      code: 'tool_error',
      message: expect.stringMatching(
        /fx\/flood returned 1000000 characters, more than its limit of 5000/,
      ),
    });
    // The server is fine afterwards.
    expect((await hub.call(server, 'echo', { text: 'still here' }, idle())).text).toBe(
      'still here',
    );
  });

  it("passes the entry's env and a minimal environment, never satchel's secrets", async () => {
    const { hub } = open({
      ...process.env,
      FIXTURE_TOKEN: 'satchel-secret',
      OPENAI_API_KEY: 'sk-x',
    });
    const own = fixtureServer({
      name: 'own',
      env: { FIXTURE_TOKEN: 't0k3n', FIXTURE_EXPECT: 't0k3n' },
    });
    const leak = fixtureServer({ name: 'leak', env: { FIXTURE_EXPECT: 'satchel-secret' } });
    await hub.tools([own, leak], idle());

    expect((await hub.call(own, 'secret_check', {}, idle())).text).toBe('ok');
    expect((await hub.call(leak, 'secret_check', {}, idle())).text).toBe('mismatch');
  });

  it('leaves out a duplicate name, a non-object schema and a 200 KB schema, with warnings', async () => {
    const { hub, events } = open();
    const server = fixtureServer({ env: { MCP_FIXTURE_MODE: 'odd-list' } });

    const { tools, failed } = await hub.tools([server], idle());

    expect(failed).toEqual([]);
    expect(tools.map((t) => t.tool)).toEqual(['echo', 'add']);
    expect(tools[0]?.description).toBe('Echoes its text');
    const [line, ...more] = events('mcp_tool_refused');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ count: 3 });
    const refused = (line!.tools as { tool: string; reason: string }[]).map((t) => [
      t.tool,
      t.reason,
    ]);
    expect(refused).toEqual([
      ['echo', expect.stringMatching(/twice; the first is kept/)],
      ['stringly', expect.stringMatching(/does not describe an object/)],
      ['huge', expect.stringMatching(/^its input schema is \d{6} characters, more than 65536$/)],
    ]);
  });

  it('keeps a server that floods stderr running, and only the tail of what it wrote', async () => {
    const { hub, events } = open();
    const server = fixtureServer({ env: { MCP_FIXTURE_MODE: 'stderr-flood' } });

    const { failed } = await hub.tools([server], idle());

    expect(failed).toEqual([]);
    expect((await hub.call(server, 'echo', { text: 'after the flood' }, idle())).text).toBe(
      'after the flood',
    );
    await expect(hub.call(server, 'crash', {}, idle())).rejects.toThrow(/exited during the call/);
    const exited = await vi.waitFor(() => events('mcp_server_exited')[0] ?? Promise.reject());
    expect(String(exited?.stderr)).toMatch(/^[e\n]+fixture: crashing in a call on purpose\n$/);
    expect(String(exited?.stderr).length).toBe(4096);
    expect(exited?.reason).toBe(
      'the server exited (stderr: fixture: crashing in a call on purpose)',
    );
  });

  it('reports a command that does not exist and a URL that does not parse as failed, never throws', async () => {
    const { hub, events } = open();
    const missing = fixtureServer({ name: 'missing' });
    missing.transport = {
      ...missing.transport,
      command: 'satchel-no-such-command',
    } as typeof missing.transport;
    const badUrl = {
      ...fixtureServer({ name: 'bad' }),
      transport: { type: 'http' as const, url: 'not a url', headers: {} },
    };

    const { tools, failed } = await hub.tools([missing, badUrl], idle());

    expect(tools).toEqual([]);
    expect(failed).toEqual([
      {
        server: 'missing',
        reason: expect.stringMatching(
          /^it could not be started: spawn satchel-no-such-command ENOENT/,
        ),
        logged: true,
      },
      {
        server: 'bad',
        reason: expect.stringMatching(/^it could not be started: Invalid URL/),
        logged: true,
      },
    ]);
    expect(events('mcp_start_failed')).toHaveLength(2);
  });

  it('offers a tool the server declares under any name (MCP_FIXTURE_EXTRA_TOOL)', async () => {
    const { hub } = open();
    const server = fixtureServer({ env: { MCP_FIXTURE_EXTRA_TOOL: 'notes.search' } });
    const { tools } = await hub.tools([server], idle());
    expect(tools.map((t) => t.tool)).toContain('notes.search');
    expect((await hub.call(server, 'notes.search', { text: 'hi' }, idle())).text).toBe('hi');
  });

  it('reads the tool list again after the server announces a change, allow-list applied', async () => {
    const { hub, events } = open();
    const startLog = path.join(dir, 'starts');
    const server = fixtureServer({
      tools: ['echo', 'add_tool', 'late'],
      env: { MCP_FIXTURE_START_LOG: startLog },
    });
    const before = await hub.tools([server], idle());
    expect(before.tools.map((t) => t.tool)).toEqual(['echo', 'add_tool']);

    await hub.call(server, 'add_tool', { name: 'late' }, idle());
    await hub.call(server, 'add_tool', { name: 'other' }, idle());
    const after = await hub.tools([server], idle());

    expect(after.tools.map((t) => t.tool)).toEqual(['echo', 'add_tool', 'late']);
    expect(after.tools.find((t) => t.tool === 'late')).toMatchObject({
      description: 'A tool added later',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect((await hub.call(server, 'late', { text: 'hi' }, idle())).text).toBe('hi');
    expect(startedPids(startLog)).toHaveLength(1);
    // Each add_tool call announced a change: the second call and tools() each read the list.
    expect(events('mcp_tools_changed')).toMatchObject([
      { pack: 'notes', server: 'fx', tools: 3 },
      { pack: 'notes', server: 'fx', tools: 3 },
    ]);
  });

  it('reads a list announced as changed during its own listing once per use, not in a loop', async () => {
    const { hub, events } = open();
    const server = fixtureServer({ env: { MCP_FIXTURE_MODE: 'churn-list' } });
    await hub.tools([server], idle());

    // Each listing announces a change: each use reads the list once, and answers.
    const again = await hub.tools([server], idle());
    await hub.tools([server], idle());

    expect(again).toMatchObject({ tools: [{ tool: 'echo' }], failed: [] });
    expect(events('mcp_tools_changed')).toHaveLength(2);
  }, 15_000);
});
