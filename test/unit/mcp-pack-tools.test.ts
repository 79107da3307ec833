/**
 * A pack's MCP tools for one turn (packMcpTools), over a fake hub: how many reach the
 * request, and which of a result's images the model is shown.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TOOLS, packMcpTools } from '../../src/mcp/pack-tools.ts';
import type { McpHub, McpResult, McpServerConfig, McpTool } from '../../src/mcp/types.ts';
import { CORE_TOOLS } from '../../src/packs/manifest.ts';
import { idle, recordingLog } from '../mcp/support.ts';

const server = (name: string): McpServerConfig => ({
  pack: 'notes',
  name,
  transport: { type: 'http', url: `http://127.0.0.1:1/${name}`, headers: {} },
  timeoutMs: 30_000,
  maxOutputChars: 20_000,
});

const toolsOf = (name: string, count: number): McpTool[] =>
  Array.from({ length: count }, (_, i) => ({
    server: name,
    tool: `t${i}`,
    description: `Tool ${i}.`,
    inputSchema: { type: 'object' },
  }));

function fakeHub(tools: McpTool[], result: () => McpResult = () => okText('')): McpHub {
  return {
    async tools(servers) {
      return { tools: tools.filter((t) => servers.some((s) => s.name === t.server)), failed: [] };
    },
    async call() {
      return result();
    },
    async close() {},
  };
}

const okText = (text: string): McpResult => ({ text, images: [], isError: false });

describe('packMcpTools', () => {
  it(`offers at most ${MAX_TOOLS} tools in all, in the order of the servers and their listings`, async () => {
    const { log, events } = recordingLog();
    const hub = fakeHub([...toolsOf('big', 150), ...toolsOf('small', 50)]);

    const tools = await packMcpTools({
      hub,
      servers: [server('big'), server('small')],
      taken: CORE_TOOLS,
      signal: idle(),
      log,
      acceptsImages: false,
      coreTools: 10,
    });

    expect(tools).toHaveLength(MAX_TOOLS - 10);
    expect(tools.map((t) => t.name)).toEqual(toolsOf('big', 118).map((t) => `big__${t.tool}`));
    const refused = events('mcp_tool_refused');
    expect(refused).toHaveLength(200 - 118);
    expect(refused[0]).toMatchObject({
      server: 'big',
      tool: 't118',
      reason: expect.stringMatching(/^too many tools/),
    });
    expect(refused.at(-1)).toMatchObject({ server: 'small', tool: 't49' });
  });
});
