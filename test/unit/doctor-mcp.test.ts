/**
 * `satchel doctor` and the packs' MCP servers (SPEC §13), over a fake hub: each server's
 * tools by the names the model sees, a clash, a tool its pins withhold, a failure, a server
 * a missing setting holds back. The real servers: test/e2e/mcp-doctor.test.ts.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${settings.NAME} is pack.yml syntax
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { McpHub, McpTool } from '../../src/mcp/types.ts';
import { formatChecks } from '../../src/ops/check.ts';
import { checkPacks } from '../../src/ops/doctor-local.ts';
import { checkMcpServers } from '../../src/ops/doctor-mcp.ts';
import { fixturePacks } from '../support/harness.ts';
import { OPTIONAL_TOKEN_SETTING } from '../support/mcp-packs.ts';

const MCP = `${OPTIONAL_TOKEN_SETTING}mcp:
  - name: files
    command: node
    args: [server.mjs]
  - name: web
    url: http://127.0.0.1:9/mcp
  - name: keyed
    url: http://127.0.0.1:9/keyed
    headers:
      Authorization: Bearer \${settings.token}
`;

const tool = (server: string, name: string): McpTool => ({
  server,
  tool: name,
  description: name,
  inputSchema: { type: 'object' },
});

function fakeHub() {
  const started: string[] = [];
  let closed = false;
  const hub: McpHub = {
    async tools(servers) {
      started.push(...servers.map((s) => `${s.pack}/${s.name}`));
      return {
        tools: [tool('files', 'read'), tool('files', 'get.x'), tool('files', 'get_x')],
        failed: [{ server: 'web', reason: 'connect ECONNREFUSED 127.0.0.1:9' }],
        withheld: [
          {
            pack: 'beta',
            server: 'files',
            tool: 'send',
            change: { kind: 'changed', schemaKeys: ['properties.to'] },
            current: tool('files', 'send'),
          },
          {
            pack: 'beta',
            server: 'files',
            tool: 'mail',
            change: { kind: 'added' },
            current: tool('files', 'mail'),
          },
        ],
      };
    },
    call: async () => ({ text: '', images: [], isError: false }),
    async close() {
      closed = true;
    },
  };
  return { hub, started, closed: () => closed };
}

describe('doctor: MCP servers', () => {
  it('lists each server’s tools as the model sees them, the clashes, withheld tools, failures and servers that are off', async () => {
    const config = parseConfig({
      SATCHEL_PACKS: [fixturePacks(['alpha']), fixturePacks(['beta'], MCP)].join(','),
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      OPENAI_API_KEY: 'sk-test-doctor-0123456789',
    });
    const fake = fakeHub();
    const checks = await checkMcpServers(config, checkPacks(config).packs, fake.hub);
    expect(fake.started).toEqual(['beta/files', 'beta/web']);
    expect(fake.closed()).toBe(true);
    expect(formatChecks(checks).split('\n')).toEqual([
      '! MCP server beta/keyed is off: it uses ${settings.token}, which is unset: set SATCHEL_PACK_BETA_TOKEN in the environment (.env)',
      '    fix: Set the variable named above to use its tools; the pack works without them.',
      '✓ MCP server beta/files (stdio node server.mjs): 2 tools',
      '    files__read, files__get_x',
      '! MCP server beta/files: tool "get_x" left out, its name files__get_x is taken by files/get.x',
      "    fix: Leave one of them out with `tools:` in beta's pack.yml, or rename it in the server.",
      '! MCP server beta/files: tool "send" withheld: input schema (properties.to) changed since it was pinned',
      '    fix: Run `npx satchel pack trust beta` to see the change and accept it; until then the model is not offered it.',
      `! MCP server beta/files: tool "mail" withheld: added since the server's tools were pinned`,
      '    fix: Run `npx satchel pack trust beta` to see the change and accept it; until then the model is not offered it.',
      '✗ MCP server beta/web (http http://127.0.0.1:9/mcp) failed: connect ECONNREFUSED 127.0.0.1:9',
      '    fix: Correct `mcp` entry "web" in beta\'s pack.yml, or the server itself; its tools are missing from the pack\'s turns until then.',
      '',
      '1 check failed: see the fixes above.',
      '',
    ]);
  });

  it('starts nothing when no pack declares servers', async () => {
    const config = parseConfig({
      SATCHEL_PACKS: fixturePacks(['alpha']),
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      OPENAI_API_KEY: 'sk-test-doctor-0123456789',
    });
    const fake = fakeHub();
    expect(await checkMcpServers(config, checkPacks(config).packs, fake.hub)).toEqual([]);
    expect(fake.started).toEqual([]);
  });
});
