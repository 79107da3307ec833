// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${settings.NAME} is pack.yml syntax, not a template
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packListCommand } from '../../src/cli/pack-list.ts';
import { parseConfig } from '../../src/config/config.ts';
import { packMcpServers } from '../../src/mcp/config.ts';
import { checkPacks } from '../../src/ops/doctor-local.ts';
import { manifestSchema } from '../../src/packs/manifest.ts';
import { resolveSettings, settingVariable } from '../../src/packs/settings.ts';
import { recordingIo } from '../support/cli-io.ts';
import { fixturePacks } from '../support/harness.ts';

const manifest = (settings: unknown[]) =>
  manifestSchema.parse({
    name: 'my-notes',
    version: '1.0.0',
    display_name: 'Notes',
    description: 'Notes.',
    skills: ['one'],
    settings,
  });

describe('pack settings', () => {
  it('names the variable SATCHEL_PACK_<PACK>_<NAME> in upper case with - as _', () => {
    expect(settingVariable('my-notes', 'api_token')).toBe('SATCHEL_PACK_MY_NOTES_API_TOKEN');
    expect(settingVariable('vault', 'api-token')).toBe('SATCHEL_PACK_VAULT_API_TOKEN');
  });

  it('resolves values, lists missing required variables and collects secrets', () => {
    const m = manifest([
      { name: 'token', description: 'API token', secret: true, required: true },
      { name: 'url', description: 'Server', required: true },
      { name: 'city', description: 'City' },
    ]);
    const resolved = resolveSettings(m, {
      SATCHEL_PACK_MY_NOTES_TOKEN: 'tok-123456',
      SATCHEL_PACK_MY_NOTES_URL: '',
      SATCHEL_PACK_OTHER_CITY: 'Paris',
    });
    expect(resolved).toEqual({
      values: { token: 'tok-123456' },
      missing: ['SATCHEL_PACK_MY_NOTES_URL'],
      secrets: ['tok-123456'],
    });
  });

  it('refuses a duplicate or badly named setting in pack.yml', () => {
    const dup = manifestSchema.safeParse({
      ...manifest([]),
      settings: [
        { name: 'token', description: 'a' },
        { name: 'TOKEN', description: 'b' },
      ],
    });
    expect(dup.error?.issues.map((i) => i.message)).toEqual([
      'duplicate setting "TOKEN" (names are read in upper case, - as _)',
    ]);
    const bad = manifestSchema.safeParse({
      ...manifest([]),
      settings: [{ name: 'api token', description: 'a' }],
    });
    expect(bad.error?.issues[0]?.path).toEqual(['settings', 0, 'name']);
  });

  it('takes a name with - (SPEC: api-token), read from SATCHEL_PACK_<PACK>_API_TOKEN and filled into mcp:', () => {
    const vault = manifestSchema.parse({
      ...manifest([]),
      name: 'vault',
      settings: [{ name: 'api-token', description: 'API token', secret: true, required: true }],
      mcp: [{ name: 'files', command: 'node', env: { API_TOKEN: '${settings.api-token}' } }],
    });
    const resolved = resolveSettings(vault, { SATCHEL_PACK_VAULT_API_TOKEN: 'tok-42' });
    expect(resolved).toEqual({
      values: { 'api-token': 'tok-42' },
      missing: [],
      secrets: ['tok-42'],
    });
    const { servers } = packMcpServers(
      { name: 'vault', dir: '/packs/vault', manifest: vault },
      resolved.values,
    );
    expect(servers[0]?.transport).toMatchObject({ env: { API_TOKEN: 'tok-42' } });
    expect(resolveSettings(vault, {}).missing).toEqual(['SATCHEL_PACK_VAULT_API_TOKEN']);
    // `api-token` and `API_TOKEN` would share one variable.
    const clash = manifestSchema.safeParse({
      ...manifest([]),
      settings: [
        { name: 'api-token', description: 'a' },
        { name: 'API_TOKEN', description: 'b' },
      ],
    });
    expect(clash.error?.issues.map((i) => i.message)).toEqual([
      'duplicate setting "API_TOKEN" (names are read in upper case, - as _)',
    ]);
  });

  it('is read by the config layer from SATCHEL_PACK_* only', () => {
    const config = parseConfig({
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      OPENAI_API_KEY: 'sk-test',
      SATCHEL_PACKS: './packs',
      SATCHEL_PACK_JOURNAL_TOKEN: 'x',
    });
    expect(config.packSettings).toEqual({ SATCHEL_PACK_JOURNAL_TOKEN: 'x' });
  });

  it('doctor names every missing required variable and what it is for', () => {
    const dir = fixturePacks(
      ['alpha'],
      'settings:\n  - {name: token, description: The API token, required: true}\n' +
        '  - {name: host, description: The server, required: true}\n',
    );
    const config = parseConfig({
      TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
      OPENAI_API_KEY: 'sk-test',
      SATCHEL_PACKS: dir,
      SATCHEL_PACK_ALPHA_HOST: 'h',
    });
    const failed = checkPacks(config).checks.filter((c) => c.status === 'fail');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.title).toContain('SATCHEL_PACK_ALPHA_TOKEN');
    expect(failed[0]!.title).not.toContain('HOST');
    expect(failed[0]!.detail).toEqual(['SATCHEL_PACK_ALPHA_TOKEN: The API token']);
  });
});

describe('satchel pack list and settings', () => {
  const withSettings = () =>
    fixturePacks(
      ['alpha', 'beta'],
      'settings:\n  - {name: token, description: The API token, required: true, secret: true}\n' +
        '  - {name: host, description: The server, required: true}\n' +
        '  - {name: color, description: Optional}\n',
    );

  async function list(env: Record<string, string>, cwd: string) {
    const io = recordingIo(env, cwd);
    const code = await packListCommand.run([], io);
    return { code, out: io.out(), err: io.err() };
  }

  it('names the variables of the required settings each pack misses, as doctor does', async () => {
    const packs = withSettings();
    const cwd = mkdtempSync(path.join(tmpdir(), 'satchel-list-cwd-'));
    try {
      // beta's token comes from .env, its host from the environment; alpha has only a host.
      writeFileSync(path.join(cwd, '.env'), 'SATCHEL_PACK_BETA_TOKEN=s3cret\n');
      const run = await list(
        {
          SATCHEL_PACKS: packs,
          SATCHEL_HOME: path.join(cwd, 'home'),
          SATCHEL_PACK_ALPHA_HOST: 'h',
          SATCHEL_PACK_BETA_HOST: 'h',
        },
        cwd,
      );
      expect(run.code).toBe(0);
      expect(run.err).toBe('');
      expect(run.out).toMatch(
        /^ {2}alpha {2}1\.0\.0 {2}Alpha Garden\n(?: {4}.*\n){2} {4}missing settings: SATCHEL_PACK_ALPHA_TOKEN \(skipped at start until set\)\n/m,
      );
      expect(run.out).not.toContain('SATCHEL_PACK_BETA');
      expect(run.out).not.toContain('s3cret');
      expect(run.out).toContain(
        '\n1 pack(s) load, 1 missing settings (skipped at start until they are set).\n',
      );

      const none = await list({ SATCHEL_PACKS: packs, SATCHEL_HOME: path.join(cwd, 'home') }, cwd);
      expect(none.out).toContain(
        'missing settings: SATCHEL_PACK_ALPHA_TOKEN, SATCHEL_PACK_ALPHA_HOST (skipped',
      );
      expect(none.out).toContain('missing settings: SATCHEL_PACK_BETA_HOST (skipped');
      expect(none.out).toContain('\n0 pack(s) load, 2 missing settings');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
