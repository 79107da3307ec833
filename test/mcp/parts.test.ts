import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/mcp/backoff.ts';
import { serverEnvironment } from '../../src/mcp/environment.ts';
import { toMcpResult } from '../../src/mcp/result.ts';
import { createStderrTail } from '../../src/mcp/stderr-tail.ts';
import { allowedTools } from '../../src/mcp/tool-list.ts';
import { fixtureServer, recordingLog } from './support.ts';

describe('MCP hub parts', () => {
  it('backs off 1 s, 2 s, 4 s … up to 60 s; a first crash costs no wait', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffMs(n))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
    expect([1, 2, 3].map((n) => backoffMs(n, 1))).toEqual([0, 1000, 2000]);
  });

  it('keeps only the last 4 KB of stderr, however much arrives at once', () => {
    const tail = createStderrTail();
    tail.push('start\n');
    tail.push(Buffer.from('x'.repeat(1_000_000)));
    tail.push('\nthe reason it died\n');
    expect(tail.text()).toHaveLength(4096);
    expect(tail.lastLine()).toBe('the reason it died');
  });

  it("passes PATH, HOME and the locale, and the entry's own env over them, nothing else", () => {
    const env = serverEnvironment(
      {
        PATH: '/bin',
        HOME: '/home/a',
        LANG: 'C.UTF-8',
        TELEGRAM_BOT_TOKEN: 't',
        OPENAI_API_KEY: 'k',
      },
      { LANG: 'de_DE.UTF-8', API_TOKEN: 'from-settings' },
    );
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/home/a',
      LANG: 'de_DE.UTF-8',
      API_TOKEN: 'from-settings',
    });
  });

  it('summarises content it does not know and answers with structured content alone', () => {
    const config = fixtureServer();
    expect(toMcpResult({ content: [{ type: 'hologram', frames: 3 }] }, config, 't').text).toBe(
      '[hologram content, 30 characters, not shown]',
    );
    expect(
      toMcpResult(
        {
          content: [
            {
              type: 'resource',
              resource: { uri: 'x:/b', mimeType: 'application/pdf', blob: 'AAAA' },
            },
          ],
        },
        config,
        't',
      ).text,
    ).toBe('[resource: x:/b, application/pdf, 3 bytes, not shown]');
    expect(toMcpResult({ content: [], structuredContent: { temp: 21 } }, config, 't').text).toBe(
      '{"temp":21}',
    );
  });

  it("counts an embedded resource's text against max_output_chars", () => {
    const text = (chars: number) => ({
      content: [{ type: 'resource', resource: { uri: 'x:/t', text: 'x'.repeat(chars) } }],
    });
    const config = fixtureServer({ maxOutputChars: 1000 });
    expect(toMcpResult(text(900), config, 't').text).toBe(
      `[resource: x:/t, unknown type]\n${'x'.repeat(900)}`,
    );
    expect(() => toMcpResult(text(1000), config, 't')).toThrow(
      /returned 1031 characters, more than its limit of 1000/,
    );
  });

  it('refuses listing entries without a name or with a schema that is not an object', () => {
    const { log, events } = recordingLog();
    const tools = allowedTools(
      [
        { description: 'no name', inputSchema: { type: 'object' } },
        { name: 'arr', inputSchema: [] },
        { name: 'none' },
        { name: 'ok', inputSchema: { type: 'object', properties: {} } },
      ],
      fixtureServer(),
      log,
    );
    expect(tools.map((t) => t.tool)).toEqual(['ok']);
    // One line for the listing, naming each refused entry.
    const [refused, ...more] = events('mcp_tool_refused');
    expect(more).toEqual([]);
    expect((refused!.tools as { tool: string }[]).map((t) => t.tool)).toEqual(['?', 'arr', 'none']);
  });
});
