/**
 * A pack's MCP tools in its turns (SPEC §13), on the in-memory channel over a fake hub and a
 * scripted model: what the model is offered and what it reads back. The real hub and its
 * fixture servers are in test/e2e/mcp-*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/core/errors.ts';
import type { ChatRequest } from '../../src/core/ports.ts';
import type { Core } from '../../src/core-app.ts';
import { DEFAULT_CLOSE_GRACE_MS, stopBoundMs } from '../../src/mcp/connection.ts';
import type { McpHub, McpResult, McpServerConfig, McpTool } from '../../src/mcp/types.ts';
import {
  type CoreRigOptions,
  coreRig,
  drained,
  MEM_CHAT as TO,
  textEvent,
} from '../support/core-rig.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { fixturePacks } from '../support/harness.ts';
import { OPTIONAL_TOKEN_SETTING } from '../support/mcp-packs.ts';

const MCP = `mcp:
  - name: files
    command: node
    args: [server.mjs]
  - name: broken
    command: node
`;

/**
 * A hub with a few tools on `files`, whose `broken` server never starts; `brokenLogged`:
 * the hub says it has warned about that failure itself.
 */
function fakeHub(
  results: Record<string, (args: Record<string, unknown>) => McpResult>,
  options: { brokenLogged?: boolean } = {},
) {
  const listed: string[][] = [];
  const calls: { server: string; tool: string; args: Record<string, unknown> }[] = [];
  const tools: McpTool[] = [
    {
      server: 'files',
      tool: 'read',
      description: 'Reads a file.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
    },
    { server: 'files', tool: 'get.x', description: 'One.', inputSchema: { type: 'object' } },
    { server: 'files', tool: 'get_x', description: 'Two.', inputSchema: { type: 'object' } },
  ];
  let closed = 0;
  const hub: McpHub = {
    async tools(servers) {
      listed.push(servers.map((s) => `${s.pack}/${s.name}`));
      return {
        tools: tools.filter((t) => servers.some((s) => s.name === t.server)),
        failed: servers
          .filter((s) => s.name === 'broken')
          .map((s) => ({
            server: s.name,
            reason: 'spawn node ENOENT',
            ...(options.brokenLogged ? { logged: true } : {}),
          })),
      };
    },
    async call(server: McpServerConfig, tool, args) {
      calls.push({ server: server.name, tool, args });
      const result = results[tool];
      if (!result) throw new ToolError(`MCP server ${server.name}: the call timed out`);
      return result(args);
    },
    async close() {
      closed++;
    },
  };
  return { hub, listed, calls, closed: () => closed };
}

/** The core with `packs` over `hub` (the real default hub when none). */
const rig = ({ hub, ...options }: CoreRigOptions & { packs: string; hub?: McpHub }) =>
  coreRig({ ...options, core: { ...options.core, ...(hub ? { mcpHub: hub } : {}) } });

async function turn(core: Core, body: string): Promise<void> {
  core.pipeline.accept(textEvent(body));
  await drained(core);
}

const toolNames = (request: ChatRequest | undefined) => request?.tools?.map((t) => t.name);
const toolResults = (request: ChatRequest | undefined) =>
  request?.messages.filter((m) => m.role === 'tool').map((m) => m.content);

describe("a pack's MCP tools in its turns", () => {
  it('offers them as <server>__<tool> with the server schema, after the core tools', async () => {
    const fake = fakeHub({});
    const { core, requests, logs } = rig({
      packs: fixturePacks(['beta'], MCP),
      hub: fake.hub,
    });
    await turn(core, 'what is in notes.txt?');
    expect(fake.listed).toEqual([['beta/files', 'beta/broken']]);
    expect(toolNames(requests[0])).toEqual(['memory', 'db_query', 'files__read', 'files__get_x']);
    expect(requests[0]!.tools![2]).toEqual({
      name: 'files__read',
      description: 'Reads a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    });
    // get.x and get_x share a provider name: the second is refused, and the log says why.
    expect(logs.filter((l) => l.event === 'mcp_tool_clash')).toMatchObject([
      { server: 'files', tool: 'get_x', name: 'files__get_x', with: 'files/get.x' },
    ]);
    expect(logs.filter((l) => l.event === 'mcp_server_failed')).toMatchObject([
      { server: 'broken', reason: 'spawn node ENOENT', pack: 'beta', level: 40 },
    ]);
    expect(fake.closed()).toBe(0);
    await core.stop(async () => {});
    expect(fake.closed()).toBe(1);
  });

  it('notes a failure the hub has warned about already at debug, on every turn', async () => {
    const fake = fakeHub({}, { brokenLogged: true });
    const { core, requests, logs } = rig({ packs: fixturePacks(['beta'], MCP), hub: fake.hub });
    await turn(core, 'first');
    await turn(core, 'second');
    expect(requests).toHaveLength(2);
    const failed = { server: 'broken', reason: 'spawn node ENOENT', pack: 'beta', level: 20 };
    expect(logs.filter((l) => l.event === 'mcp_server_failed')).toMatchObject([failed, failed]);
    expect(logs.filter((l) => (l.level as number) >= 40 && l.server === 'broken')).toEqual([]);
  });

  it('calls the server and the model reads the result; errors begin with Error:', async () => {
    const fake = fakeHub({
      read: (args) =>
        args.path === 'missing.txt'
          ? { text: 'no such file', images: [], isError: true }
          : {
              text: 'fern: water weekly',
              images: [{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }],
              isError: false,
            },
    });
    const { core, requests, channels } = rig({
      packs: fixturePacks(['beta'], MCP),
      hub: fake.hub,
      // The calls after the first read run in a tainted turn: no approval is asked here.
      env: { TOOL_APPROVAL: 'off' },
      steps: [
        {
          calls: [
            { name: 'files__read', arguments: '{"path":"notes.txt"}' },
            { name: 'files__read', arguments: '{"path":"missing.txt"}' },
            { name: 'files__get_x', arguments: '{}' },
            { name: 'files__read', arguments: '["notes.txt"]' },
          ],
        },
        'Water the fern weekly.',
      ],
    });
    await turn(core, 'what is in notes.txt?');
    expect(fake.calls).toEqual([
      { server: 'files', tool: 'read', args: { path: 'notes.txt' } },
      { server: 'files', tool: 'read', args: { path: 'missing.txt' } },
      { server: 'files', tool: 'get.x', args: {} },
    ]);
    expect(toolResults(requests[1])).toEqual([
      // The scripted model takes no images: the image is described. The server's results,
      // and its errors, come in their envelopes.
      '<<untrusted source="mcp files/read">>\nfern: water weekly\n[image: image/png, 8 bytes, not shown]\n<<end untrusted>>',
      'Error: <<untrusted source="mcp files/read">>\nno such file\n<<end untrusted>>',
      'Error: <<untrusted source="mcp files/get.x">>\nMCP server files: the call timed out\n<<end untrusted>>',
      'Error: arguments must be a JSON object',
    ]);
    expect(channels.mem!.transcript(TO)).toEqual(['Water the fern weekly.']);
  });

  it('makes no hub call for a pack without mcp:, and its request is byte for byte the same', async () => {
    const fake = fakeHub({});
    const withHub = rig({ packs: fixturePacks(['beta']), hub: fake.hub });
    await turn(withHub.core, 'hello');
    const without = rig({ packs: fixturePacks(['beta']) });
    await turn(without.core, 'hello');
    expect(fake.listed).toEqual([]);
    expect(JSON.stringify(withHub.requests[0])).toBe(JSON.stringify(without.requests[0]));
    expect(toolNames(withHub.requests[0])).toEqual(['memory', 'db_query']);
  });

  it("gives them only to the pack's own turns", async () => {
    const fake = fakeHub({});
    const { core, requests } = rig({
      packs: [fixturePacks(['alpha']), fixturePacks(['beta'], MCP)].join(','),
      hub: fake.hub,
    });
    core.router.resolve(TO, 'alpha');
    await turn(core, 'hello');
    expect(fake.listed).toEqual([]);
    expect(toolNames(requests[0])?.some((n) => n.includes('__'))).toBe(false);
  });

  it('leaves out a server whose optional setting is unset, naming the variable', async () => {
    const fake = fakeHub({});
    const { core, requests, logs } = rig({
      packs: fixturePacks(
        ['beta'],
        `${OPTIONAL_TOKEN_SETTING}mcp:
  - name: files
    command: node
    env:
      API_TOKEN: \${settings.token}
`,
      ),
      hub: fake.hub,
    });
    expect(logs.filter((l) => l.event === 'mcp_server_unavailable')).toMatchObject([
      {
        pack: 'beta',
        server: 'files',
        reason: expect.stringContaining('set SATCHEL_PACK_BETA_TOKEN'),
      },
    ]);
    await turn(core, 'hello');
    expect(fake.listed).toEqual([]);
    expect(toolNames(requests[0])).toEqual(['memory', 'db_query']);
  });

  it('on shutdown waits for the servers past their grace, so a stuck one is SIGKILLed', async () => {
    let closed = false;
    let hubClosing = () => {};
    const closing = new Promise<void>((resolve) => {
      hubClosing = resolve;
    });
    const hub: McpHub = {
      ...fakeHub({}).hub,
      // Stands for a server that ignores SIGTERM: the hub's close takes its grace and more.
      close: () => {
        hubClosing();
        return new Promise<void>(() => {});
      },
    };
    const clock = new FakeClock();
    const packs = fixturePacks(['beta'], MCP);
    const { core, release } = rig({ packs, hub, clock, core: { shutdownGraceMs: 0 } });
    release();
    const stopping = core
      .stop(async () => {})
      .then(() => {
        closed = true;
      });
    await closing;
    const askedAt = clock.now();

    // The default hub's servers get their grace, then SIGKILL and the wait after it: the
    // stop's wait for the hub (the hub never answers, so only this timer ends it) is still
    // pending a moment before that.
    const waitEnds = askedAt + stopBoundMs(DEFAULT_CLOSE_GRACE_MS);
    expect(clock.dueTimes()).toContain(waitEnds);
    clock.advance(waitEnds - askedAt - 1);
    expect(clock.dueTimes()).toEqual([waitEnds]);
    expect(closed).toBe(false);
    clock.advance(1);
    await stopping;
    expect(closed).toBe(true);
  });
});
