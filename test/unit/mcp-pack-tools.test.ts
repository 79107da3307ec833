/**
 * A pack's MCP tools for one turn (packMcpTools), over a fake hub: how many reach the
 * request, and which of a result's images the model is shown.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_IMAGE_CHARS,
  MAX_TURN_IMAGE_CHARS,
  MAX_TURN_IMAGES,
} from '../../src/mcp/image-budget.ts';
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
    // One line names the tools left out (the first 100 of them) and counts them all.
    const refused = events('mcp_tool_refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      count: 200 - 118,
      reason: expect.stringMatching(/^too many tools/),
    });
    const names = refused[0]!.tools as string[];
    expect(names[0]).toBe('big/t118');
    expect(names.at(-1)).toBe('small/t49');
  });

  describe('the images of a turn', () => {
    /** One turn's tools over a hub whose `shot` answers with the next of `results`' images. */
    async function turnTools(results: string[][]) {
      const queue = [...results];
      const hub = fakeHub(toolsOf('cam', 1), () => ({
        text: 'shot',
        images: (queue.shift() ?? []).map((data) => ({ mimeType: 'image/png', data })),
        isError: false,
      }));
      const [tool] = await packMcpTools({
        hub,
        servers: [server('cam')],
        taken: CORE_TOOLS,
        signal: idle(),
        log: recordingLog().log,
        acceptsImages: true,
        coreTools: 10,
      });
      return async () => {
        const out = await tool!.run({}, idle());
        return typeof out === 'string' ? { text: out, images: [] } : out;
      };
    }
    const base64 = (chars: number, tag = 'A') => tag.repeat(chars);

    it(`shows at most ${MAX_TURN_IMAGES} images in a turn; the rest are described`, async () => {
      const shot = await turnTools([['AAAA', 'BBBB', 'CCCC'], ['DDDD', 'EEEE', 'FFFF'], ['GGGG']]);

      const first = await shot();
      const second = await shot();
      const third = await shot();

      expect(first.images.map((i) => i.data)).toEqual(['AAAA', 'BBBB', 'CCCC']);
      expect(second.images.map((i) => i.data)).toEqual(['DDDD', 'EEEE']);
      expect(second.text).toBe(
        [
          'shot',
          '[image: image/png, 3 bytes, shown to you after the tool results]',
          '[image: image/png, 3 bytes, shown to you after the tool results]',
          '[image: image/png, 3 bytes, not shown]',
        ].join('\n'),
      );
      expect(third).toEqual({ text: 'shot\n[image: image/png, 3 bytes, not shown]', images: [] });
      // The next turn has a budget of its own.
      const next = await turnTools([['HHHH']]);
      expect((await next()).images).toHaveLength(1);
    });

    it('shows at most ~8 MB of base64 in a turn, and no single image over 4 MB', async () => {
      const third = Math.floor(MAX_TURN_IMAGE_CHARS / 3);
      const shot = await turnTools([
        [base64(MAX_IMAGE_CHARS + 4)],
        [base64(third, 'B'), base64(third, 'C')],
        [base64(third + 4, 'D')],
        [base64(third - 4, 'E')],
      ]);

      expect((await shot()).images).toEqual([]);
      expect((await shot()).images.map((i) => i.data[0])).toEqual(['B', 'C']);
      expect((await shot()).images).toEqual([]);
      // What is left of the budget still takes an image that fits.
      expect((await shot()).images.map((i) => i.data[0])).toEqual(['E']);
    });
  });
});
