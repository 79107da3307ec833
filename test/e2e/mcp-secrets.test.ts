/**
 * A pack's secret setting and its MCP servers (SPEC §13, §15; issue 29): the value reaches
 * the stdio server's environment (`${settings.token}`) and the HTTP server's header, and
 * nowhere else — not in a model request, a log line, a database file (its WAL included) or
 * a backup archive.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${settings.NAME} is pack.yml syntax

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { backupCommand } from '../../src/cli/backup.ts';
import type { CliIo } from '../../src/core/cli-io.ts';
import { toolResults, unwrapped } from '../fakes/model-requests.ts';
import { type McpHttpFixture, startMcpHttpFixture } from '../fixtures/mcp/http-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { fixtureEntry, SECRET_TOKEN_SETTING } from '../support/mcp-packs.ts';
import { LONG_SECRET, secretFragmentsIn } from '../support/secret-fragments.ts';

const SECRET = 'mcp-secret-5b1e9d7c3a';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
const h = harnessPerTest();

/** Every file under `dir`, with its path. */
function filesUnder(dir: string): { file: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, bytes: readFileSync(file) }));
}

const holding = (files: { file: string; bytes: Buffer }[]) =>
  files.filter((f) => f.bytes.includes(SECRET)).map((f) => f.file);

async function backup(env: Record<string, string>, cwd: string): Promise<Buffer> {
  const out = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-backup-'));
  closers.push(() => rmSync(out, { recursive: true, force: true }));
  const stdout = new PassThrough().resume();
  let err = '';
  const stderr = new PassThrough().on('data', (c) => {
    err += c;
  });
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env, cwd };
  expect(await backupCommand.run([out], io), err).toBe(0);
  const [archive] = readdirSync(out).filter((f) => f.endsWith('.tar.gz'));
  return readFileSync(path.join(out, archive!));
}

describe('a secret setting and its MCP servers', () => {
  it('reaches the stdio env and the HTTP header, and no model request, log, database or backup', async () => {
    const web: McpHttpFixture = await startMcpHttpFixture({
      requireHeaders: { Authorization: `Bearer ${SECRET}` },
    });
    closers.push(() => web.close());
    const packs = fixturePacks(
      ['beta'],
      `settings:
  - name: token
    description: The service token.
    secret: true
    required: true
  - name: expect
    description: What the fixture compares the token with.
    secret: true
    required: true
mcp:
${fixtureEntry('fx', [
  'tools: [secret_check]',
  'env:',
  '  FIXTURE_TOKEN: ${settings.token}',
  '  FIXTURE_EXPECT: ${settings.expect}',
])}
  - name: web
    url: ${web.url}
    headers:
      Authorization: Bearer \${settings.token}
`,
    );
    await h.start({
      SATCHEL_PACKS: packs,
      SATCHEL_PACK_BETA_TOKEN: SECRET,
      SATCHEL_PACK_BETA_EXPECT: SECRET,
      // Several server calls in one turn: after the first the turn is tainted, and this test
      // is about secrets, not approvals.
      TOOL_APPROVAL: 'off',
    });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'fx__secret_check', arguments: {} },
          { name: 'web__add', arguments: { a: 2, b: 3 } },
        ],
      },
      { text: 'Both servers answered.' },
    );
    h.tg.text({ userId: ALLOWED_USER, text: 'check the services' });
    await settled(h, 1);

    // It arrived: the stdio server compared its env, the HTTP server let every request in.
    const [, second] = h.model.chatRequests();
    expect(toolResults(second).map(unwrapped)).toEqual(['ok', '5']);
    expect(web.requests.length).toBeGreaterThan(0);
    expect(web.requests.filter((r) => r.refused)).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Both servers answered.');

    // And nowhere else.
    expect(JSON.stringify(h.model.requests())).not.toContain(SECRET);
    expect(h.logs().length).toBeGreaterThan(0);
    expect(JSON.stringify(h.logs())).not.toContain(SECRET);
    const running = filesUnder(h.home);
    expect(running.map((f) => path.basename(f.file))).toEqual(
      expect.arrayContaining(['pack.db', expect.stringMatching(/\.db-wal$/)]),
    );
    expect(holding(running)).toEqual([]);
    const archive = await backup(h.env, h.home);
    expect(archive.includes(SECRET)).toBe(false);
    expect(gunzipSync(archive).includes(SECRET)).toBe(false);
    expect(gunzipSync(archive).includes(Buffer.from('Both servers answered.'))).toBe(true);

    await h.stop();
    expect(holding(filesUnder(h.home))).toEqual([]);
  });
});

describe('a secret setting an MCP server quotes when it fails', () => {
  it('reaches no model request, log line or database file: only the redaction mark', async () => {
    const packs = fixturePacks(
      ['beta'],
      `${SECRET_TOKEN_SETTING}mcp:
${fixtureEntry('fx', ['tools: [leak_fail]', 'env:', '  FIXTURE_TOKEN: ${settings.token}'])}
${fixtureEntry('down', ['env:', '  MCP_FIXTURE_MODE: leak-start', '  FIXTURE_TOKEN: ${settings.token}'])}
`,
    );
    await h.start({ SATCHEL_PACKS: packs, SATCHEL_PACK_BETA_TOKEN: LONG_SECRET });
    h.model.enqueue(
      { toolCalls: [{ name: 'fx__leak_fail', arguments: {} }] },
      { text: 'The service refused.' },
    );
    h.tg.text({ userId: ALLOWED_USER, text: 'check the service' });
    await settled(h, 1);

    const [, second] = h.model.chatRequests();
    const results = ((second?.body.messages ?? []) as { role: string; content: string }[])
      .filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(results).toHaveLength(1);
    expect(results[0]).toContain('invalid key [redacted]');
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('The service refused.');
    expect(secretFragmentsIn(JSON.stringify(h.model.requests()))).toEqual([]);
    const logs = JSON.stringify(h.logs());
    expect(logs).toContain('invalid key [redacted]');
    expect(secretFragmentsIn(logs)).toEqual([]);
    await h.stop();
    const stored = filesUnder(h.home).filter(
      (f) => secretFragmentsIn(f.bytes.toString('latin1')).length > 0,
    );
    expect(stored.map((f) => f.file)).toEqual([]);
  });
});
