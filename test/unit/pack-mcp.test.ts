/**
 * A pack's `mcp:` servers (SPEC §13, §15): what `pack.yml` may say, what `pack validate`
 * reports, and the server configs the hub gets (settings filled in).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${settings.NAME} is pack.yml syntax, not a template
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packNewCommand } from '../../src/cli/pack-new.ts';
import { packTestCommand } from '../../src/cli/pack-test.ts';
import { packValidateCommand } from '../../src/cli/pack-validate.ts';
import { packMcpServers } from '../../src/mcp/config.ts';
import { describeIssue, manifestSchema } from '../../src/packs/manifest.ts';
import { scaffoldPack } from '../../src/packs/scaffold.ts';
import { recordingIo } from '../support/cli-io.ts';
import { fixturePacks } from '../support/harness.ts';
import { fixtureEntry } from '../support/mcp-packs.ts';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SETTINGS = [
  { name: 'token', description: 'API token', secret: true },
  { name: 'region', description: 'Region' },
];
const manifest = (mcp: unknown[]) => ({
  name: 'notes',
  version: '1.0.0',
  display_name: 'Notes',
  description: 'Notes.',
  skills: ['one'],
  settings: SETTINGS,
  mcp,
});
/** The problems `pack.yml` with these `mcp:` entries has, as "field: problem". */
const problems = (mcp: unknown[]) => {
  const input = manifest(mcp);
  const result = manifestSchema.safeParse(input);
  return (result.error?.issues ?? []).map((issue) => {
    const { field, problem } = describeIssue(issue, input);
    return `${field}: ${problem}`;
  });
};

describe('mcp: in pack.yml', () => {
  it('takes stdio and HTTP servers, with settings in env and headers, and applies the defaults', () => {
    const parsed = manifestSchema.parse(
      manifest([
        {
          name: 'files',
          command: 'node',
          args: ['server.mjs'],
          env: { API_TOKEN: '${settings.token}', REGION: 'eu-${settings.region}' },
          tools: ['read'],
        },
        {
          name: 'weather',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer ${settings.token}' },
          timeout_ms: 5000,
          max_output_chars: 4000,
        },
      ]),
    );
    expect(parsed.mcp.map((s) => [s.name, s.timeout_ms, s.max_output_chars])).toEqual([
      ['files', 30000, 20000],
      ['weather', 5000, 4000],
    ]);
    expect(manifestSchema.parse(manifest([])).mcp).toEqual([]);
  });

  it('refuses a literal secret, an undeclared setting and a secret header from a non-secret setting', () => {
    expect(
      problems([
        {
          name: 'files',
          command: 'node',
          env: { GITHUB_TOKEN: 'ghp_literal', LANG: '${settings.lang}' },
        },
        {
          name: 'web',
          url: 'https://mcp.example.com',
          headers: { 'X-Api-Key': '${settings.region}', Accept: '${setting.region}' },
        },
      ]),
    ).toEqual([
      'mcp[0].env.GITHUB_TOKEN: "GITHUB_TOKEN" looks like a secret: never write it in pack.yml; declare a setting (`settings:` with `secret: true`) and use ${settings.NAME}',
      'mcp[0].env.LANG: ${settings.lang}: no setting "lang" is declared in `settings`',
      'mcp[1].headers.X-Api-Key: "X-Api-Key" carries a secret: declare the setting "region" with `secret: true` so it is kept out of logs, the model and backups',
      'mcp[1].headers.Accept: a "${" here must be a setting reference: ${settings.NAME}',
    ]);
  });

  it('wants one transport per server, names unique and fit for <name>__<tool>', () => {
    expect(
      problems([
        { name: 'a', command: 'node', url: 'http://localhost:1/mcp' },
        { name: 'a', url: 'http://localhost:1/mcp', env: { X: '1' } },
        { name: 'b', command: 'node', headers: { X: '1' } },
        { name: 'c' },
        { name: 'my__srv', url: 'ftp://x' },
      ]),
    ).toEqual([
      'mcp[4].name: must not contain "__" or end with "_" (the tools are named <name>__<tool>)',
      'mcp[4].url: must be an http(s) URL',
      'mcp[0]: has both `command` and `url`: a server is either stdio (command) or HTTP (url)',
      'mcp[1].name: duplicate server "a"',
      'mcp[1].env: `env` is for a stdio server (command); an HTTP server takes `headers`',
      'mcp[2].headers: `headers` is for an HTTP server (url); a stdio server takes `env`',
      'mcp[3]: needs `command` (a stdio server) or `url` (a streamable HTTP server)',
    ]);
    expect(problems([{ name: 'Files', command: 'x', timeout: 5 }])).toEqual([
      'mcp[0].name: must match [a-z][a-z0-9_-]* (it names the tools: <name>__<tool>)',
      'mcp[0]: Unrecognized key: "timeout"',
    ]);
  });
});

describe('satchel pack validate with mcp:', () => {
  const validate = async (extra: string) => {
    const dir = path.join(fixturePacks(['alpha'], extra), 'alpha');
    const io = recordingIo({}, dir);
    const code = await packValidateCommand.run([dir], io);
    return { code, out: io.out(), err: io.err(), dir };
  };

  it('reports mcp problems with their lines, like the others', async () => {
    const { code, err, dir } = await validate(
      [
        'settings:',
        '  - name: token',
        '    description: The API token.',
        '    secret: true',
        'mcp:',
        '  - name: files',
        '    command: node',
        '    env:',
        '      API_KEY: sk-live-123',
        '      OTHER: ${settings.tokn}',
        '',
      ].join('\n'),
    );
    const lines = readFileSync(path.join(dir, 'pack.yml'), 'utf8').split('\n');
    const lineOf = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    expect(code).toBe(1);
    expect(err).toContain('invalid pack (2 problems):');
    expect(err).toContain(
      `\`pack.yml\` line ${lineOf('API_KEY')}: \`mcp[0].env.API_KEY\` — "API_KEY" looks like a secret`,
    );
    expect(err).toContain(
      `\`pack.yml\` line ${lineOf('OTHER')}: \`mcp[0].env.OTHER\` — \${settings.tokn}: no setting "tokn" is declared in \`settings\` (did you mean \`token\`?)`,
    );
  });

  it('lists the servers of a valid pack', async () => {
    const { code, out } = await validate(
      'mcp:\n  - name: files\n    command: node\n  - name: web\n    url: https://mcp.example.com/mcp\n',
    );
    expect(code).toBe(0);
    expect(out).toContain(
      '  mcp servers: files (stdio node), web (http https://mcp.example.com/mcp)\n',
    );
  });
});

describe('packMcpServers', () => {
  const pack = (mcp: unknown[]) => {
    const parsed = manifestSchema.parse(manifest(mcp));
    return { name: 'notes', dir: '/packs/notes', manifest: parsed };
  };

  it('fills in the settings, applies the defaults and runs stdio servers from the pack folder', () => {
    const servers = packMcpServers(
      pack([
        { name: 'files', command: './bin/server', env: { API_TOKEN: '${settings.token}' } },
        {
          name: 'web',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer ${settings.token}' },
          tools: ['search'],
        },
      ]),
      { token: 'tok-9' },
    );
    expect(servers).toEqual({
      servers: [
        {
          pack: 'notes',
          name: 'files',
          transport: {
            type: 'stdio',
            command: './bin/server',
            args: [],
            env: { API_TOKEN: 'tok-9' },
            cwd: '/packs/notes',
          },
          timeoutMs: 30000,
          maxOutputChars: 20000,
        },
        {
          pack: 'notes',
          name: 'web',
          transport: {
            type: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer tok-9' },
          },
          tools: ['search'],
          timeoutMs: 30000,
          maxOutputChars: 20000,
        },
      ],
      unavailable: [],
    });
  });

  it('holds back a server whose optional setting is unset, naming the variable', () => {
    const { servers, unavailable } = packMcpServers(
      pack([
        { name: 'files', command: 'node', env: { API_TOKEN: '${settings.token}' } },
        { name: 'plain', command: 'node' },
      ]),
      {},
    );
    expect(servers.map((s) => s.name)).toEqual(['plain']);
    expect(unavailable).toEqual([
      {
        server: 'files',
        reason:
          'it uses ${settings.token}, which is unset: set SATCHEL_PACK_NOTES_TOKEN in the environment (.env)',
      },
    ]);
  });
});

describe('satchel pack new', () => {
  it('shows settings and an mcp: server in comments, valid once uncommented', () => {
    const yml = scaffoldPack('notes', '../pack.schema.json')['pack.yml']!;
    const start = yml.indexOf('# settings:');
    expect(start).toBeGreaterThan(0);
    const uncommented = `${yml.slice(0, start)}${yml.slice(start).replace(/^# /gm, '')}`;
    const parsed = manifestSchema.safeParse(parseYaml(uncommented));
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data?.mcp[0]?.env).toEqual({ FILES_TOKEN: '${settings.files_token}' });
  });
});

describe('satchel pack test with mcp:', () => {
  it('starts no server (offline): a call of an MCP tool is an error result', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'satchel-pack-test-mcp-'));
    temps.push(root);
    expect(await packNewCommand.run(['demo', '--dir', root], recordingIo({}, root))).toBe(0);
    const dir = path.join(root, 'demo');
    // A server that never answers: a test that waited for it would never end.
    appendFileSync(
      path.join(dir, 'pack.yml'),
      `mcp:\n${fixtureEntry('fx', ['env:', '  MCP_FIXTURE_MODE: hang-start'])}\n`,
    );
    writeFileSync(
      path.join(dir, 'tests', 'mcp.yml'),
      `tests:
  - name: echoes
    turns:
      - user: echo hi
        model:
          - tool: fx__echo
            args: { text: hi }
          - answer: It did not work.
        expect:
          tool_error: [fx__echo]
`,
    );
    const io = recordingIo({}, root);
    const code = await packTestCommand.run([dir], io);
    expect(io.out()).toContain('✓ mcp.yml: echoes');
    expect(code).toBe(0);
  });
});

// The example in docs/PACKS.md is a valid manifest (kept true by this test).
describe('docs/PACKS.md', () => {
  it('shows an mcp: example that validates', () => {
    const docs = readFileSync(new URL('../../docs/PACKS.md', import.meta.url), 'utf8');
    const block = docs.match(/```yaml\n(# An MCP example[\s\S]*?)```/)?.[1] ?? '';
    const parsed = manifestSchema.safeParse(parseYaml(block));
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data?.mcp.map((s) => s.name)).toEqual(['files', 'weather']);
  });
});
