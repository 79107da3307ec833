/**
 * `satchel doctor` starts each pack's MCP servers (the stdio fixture): their tools by the
 * names the model sees, a tool refused for a name clash, a server that fails to start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/cli/doctor.ts';
import type { CliIo } from '../../src/core/cli-io.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';
import { fixtureEntry, SECRET_TOKEN_SETTING } from '../support/mcp-packs.ts';
import { LONG_SECRET, secretFragmentsIn } from '../support/secret-fragments.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function doctor(
  packs: string,
  more: Record<string, string> = {},
): Promise<{ code: number; lines: string[] }> {
  const model = await FakeModel.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-doctor-'));
  closers.push(
    () => model.stop(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  let out = '';
  const stdout = new PassThrough().on('data', (chunk) => {
    out += chunk;
  });
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    env: {
      SATCHEL_HOME: home,
      SATCHEL_PACKS: packs,
      OPENAI_API_KEY: TEST_OPENAI_KEY,
      OPENAI_BASE_URL: `${model.url}/v1`,
      LLM_MODEL: 'gpt-4.1-mini',
      DASHBOARD_PORT: '0',
      ...more,
    },
    cwd: home,
  };
  const code = await doctorCommand.run([], io);
  return { code, lines: out.split('\n') };
}

describe('satchel doctor: MCP servers', () => {
  it('lists the tools as the model sees them, names a clash and says why a server failed', async () => {
    const packs = fixturePacks(
      ['beta'],
      `mcp:\n${[
        fixtureEntry('fx', [
          'tools: [echo, secret_check, secret.check]',
          'env:',
          '  MCP_FIXTURE_EXTRA_TOOL: secret.check',
        ]),
        fixtureEntry('down', ['env:', '  MCP_FIXTURE_MODE: crash-start']),
      ].join('\n')}\n`,
    );
    const { code, lines } = await doctor(packs);
    const at = lines.findIndex((l) => l.startsWith('✓ MCP server beta/fx (stdio '));
    expect(at, lines.join('\n')).toBeGreaterThanOrEqual(0);
    expect(lines[at]).toMatch(/: 2 tools$/);
    expect(lines[at + 1]).toBe('    fx__echo, fx__secret_check');
    expect(lines[at + 2]).toBe(
      '! MCP server beta/fx: tool "secret.check" left out, its name fx__secret_check is taken by fx/secret_check',
    );
    const down = lines.find((l) => l.startsWith('✗ MCP server beta/down (stdio '));
    expect(down, lines.join('\n')).toContain('crashing at start on purpose');
    expect(code).toBe(1);
  });

  it('says why a server failed without a piece of the secret setting it quoted', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${settings.NAME} is pack.yml syntax
    const token = '  FIXTURE_TOKEN: ${settings.token}';
    const packs = fixturePacks(
      ['beta'],
      `${SECRET_TOKEN_SETTING}mcp:
${fixtureEntry('down', ['env:', '  MCP_FIXTURE_MODE: leak-start', token])}
`,
    );
    const { code, lines } = await doctor(packs, { SATCHEL_PACK_BETA_TOKEN: LONG_SECRET });
    const down = lines.find((l) => l.startsWith('✗ MCP server beta/down (stdio '));
    expect(down, lines.join('\n')).toContain('(stderr: fixture: invalid key [redacted])');
    expect(secretFragmentsIn(lines.join('\n'))).toEqual([]);
    expect(code).toBe(1);
  });
});
