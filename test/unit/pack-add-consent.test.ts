import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPackAddCommand } from '../../src/cli/pack-add.ts';
import { cliArgs } from '../support/built.ts';
import { recordingIo } from '../support/cli-io.ts';
import { packSource } from '../support/pack-sources.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-pack-consent-');
/** util-linux `script` runs a command under a pseudo-terminal: a real TTY for the prompt. */
const hasScript = spawnSync('script', ['--version']).status === 0;

/** alpha's tools, table and schedule, plus web_fetch, two MCP servers and two settings. */
const EXTRA = `mcp:
  - name: files
    command: node
    args: [server.mjs, --root, .]
  - name: vault
    url: https://vault.example.com/mcp
    headers:
      Authorization: "Bearer \${settings.api_token}"
settings:
  - name: api_token
    description: The vault token.
    secret: true
    required: true
  - name: region
    description: Where the vault is.
`;

function workspace() {
  const cwd = temp();
  const home = path.join(cwd, 'home');
  const env = { SATCHEL_HOME: home, SATCHEL_PACKS: path.join(cwd, 'packs') };
  return { cwd, home, env, installed: path.join(home, 'installed-packs') };
}

/** A copy of fixture alpha at `version`, its pack.yml edited by `edit`. */
function source(cwd: string, version: string, edit: (yml: string) => string = (y) => y): string {
  const dir = packSource(cwd, 'alpha', { version });
  const manifest = path.join(dir, 'pack.yml');
  writeFileSync(manifest, edit(readFileSync(manifest, 'utf8')));
  return dir;
}

const withExtras = (yml: string) =>
  `${yml.replace('tools: [memory,', 'tools: [web_fetch, memory,')}${EXTRA}`;

/** Runs pack add with stdin a terminal (when `answer` is given, typed into it) or not. */
async function add(w: ReturnType<typeof workspace>, args: string[], answer?: string) {
  const io = recordingIo(w.env, w.cwd);
  if (answer !== undefined) {
    const stdin = io.stdin as PassThrough & { isTTY?: boolean };
    stdin.isTTY = true;
    stdin.end(answer);
  }
  const code = await createPackAddCommand().run(args, io);
  return { code, out: io.out(), err: io.err() };
}

const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe('pack add shows what a pack may do before it installs it', () => {
  it('prints tools with effects, MCP servers, settings, schedules and tables, aligned', async () => {
    const w = workspace();
    const done = await add(w, [source(w.cwd, '1.0.0', withExtras), '--yes']);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toBe(
      [
        'alpha 1.0.0 (Alpha Garden) may use:',
        '  Core tools:',
        '    web_fetch     read',
        '    memory        write',
        '    skill_view    read',
        '    db_query      read',
        '    db_write      write',
        '    send_message  external',
        '    ask_user      read',
        '    schedule      write',
        '  MCP servers (their tools count as external unless the server marks them read-only):',
        '    files  stdio: node server.mjs --root .',
        '    vault  https://vault.example.com/mcp',
        '  Settings and secrets it reads from the environment:',
        '    api_token  secret, required      SATCHEL_PACK_ALPHA_API_TOKEN',
        '    region     not secret, optional  SATCHEL_PACK_ALPHA_REGION',
        '  Schedules:',
        '    water-check  0 8 * * *  runs skill alpha_one',
        '  Tables it owns (db_write may change them):',
        '    plants',
        `Installed alpha 1.0.0 in ${path.join(w.installed, 'alpha')}; it is offered at the next start.`,
        '',
      ].join('\n'),
    );
    // What lands in SATCHEL_HOME is its owner's alone, whatever the source's modes.
    const mode = (file: string) => statSync(path.join(w.installed, file)).mode & 0o777;
    expect([mode('alpha'), mode('alpha/pack.yml'), mode('alpha/skills/alpha_one')]).toEqual([
      0o700, 0o600, 0o700,
    ]);
  });

  it('without a terminal refuses (exit 1) after printing them, and installs nothing', async () => {
    const w = workspace();
    const refused = await add(w, [source(w.cwd, '1.0.0')]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('    send_message  external\n');
    expect(refused.err).toBe(
      'satchel pack add: there is no terminal to ask whether to install alpha 1.0.0; nothing was installed. Run it with --yes to accept what it may do (above).\n',
    );
    expect(listing(w.installed)).toEqual([]);
  });

  it('in a terminal asks, default no: "y" installs, Enter refuses', async () => {
    const w = workspace();
    const no = await add(w, [source(w.cwd, '1.0.0')], '\n');
    expect(no.out).toContain('Install alpha 1.0.0? [y/N] ');
    expect(no.code).toBe(1);
    expect(no.err).toBe('satchel pack add: alpha 1.0.0 was not installed.\n');
    expect(listing(w.installed)).toEqual([]);

    const yes = await add(w, [source(w.cwd, '1.0.0')], 'y\n');
    expect(yes.out).toContain('Install alpha 1.0.0? [y/N] Installed alpha 1.0.0');
    expect(yes.code).toBe(0);
    expect(listing(w.installed)).toEqual(['alpha']);
  });

  it('--upgrade shows what the new version adds and removes, and asks because it adds', async () => {
    const w = workspace();
    expect((await add(w, [source(w.cwd, '1.0.0'), '--yes'])).code).toBe(0);
    const next = source(w.cwd, '1.1.0', (yml) =>
      withExtras(yml).replace(/cron:[\s\S]*?enabled: true\n/, ''),
    );
    const declined = await add(w, [next, '--upgrade'], 'n\n');
    expect(declined.out).toBe(
      [
        'alpha 1.1.0 replaces 1.0.0. What it may do changes:',
        '  +  tool        web_fetch    read',
        '  +  MCP server  files        stdio: node server.mjs --root .',
        '  +  MCP server  vault        https://vault.example.com/mcp',
        '  +  setting     api_token    secret, required      SATCHEL_PACK_ALPHA_API_TOKEN',
        '  +  setting     region       not secret, optional  SATCHEL_PACK_ALPHA_REGION',
        '  -  schedule    water-check  0 8 * * *  runs skill alpha_one',
        'Install alpha 1.1.0? [y/N] ',
      ].join('\n'),
    );
    expect(declined.code).toBe(1);
    expect(readFileSync(path.join(w.installed, 'alpha', 'pack.yml'), 'utf8')).toContain(
      'version: 1.0.0',
    );
    const accepted = await add(w, [next, '--upgrade'], 'yes\n');
    expect(accepted.code).toBe(0);
    expect(accepted.out).toContain('Installed alpha 1.1.0 (was 1.0.0)');
  });

  it('--upgrade that only removes proceeds without asking, also without a terminal', async () => {
    const w = workspace();
    expect((await add(w, [source(w.cwd, '1.0.0', withExtras), '--yes'])).code).toBe(0);
    const fewer = source(w.cwd, '1.1.0', (yml) => yml.replace('send_message, ', ''));
    const done = await add(w, [fewer, '--upgrade']);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toContain('  -  tool        send_message  external\n');
    expect(done.out).toContain('  -  effect      external\n');
    expect(done.out).not.toContain('  +  ');
    expect(done.out).toContain('Installed alpha 1.1.0 (was 1.0.0)');
  });

  it('the satchel command without a terminal exits 1 and writes nothing', () => {
    const w = workspace();
    const src = source(w.cwd, '1.0.0');
    const run = spawnSync(process.execPath, [...cliArgs(), 'pack', 'add', src], {
      cwd: w.cwd,
      env: { PATH: process.env.PATH ?? '', ...w.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      input: 'y\n',
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('alpha 1.0.0 (Alpha Garden) may use:');
    expect(run.stderr).toContain('there is no terminal to ask');
    expect(listing(w.installed)).toEqual([]);
  });

  it.skipIf(!hasScript)('the satchel command in a real terminal asks, and "y" installs', () => {
    const w = workspace();
    const src = source(w.cwd, '1.0.0');
    const command = [process.execPath, ...cliArgs(), 'pack', 'add', src]
      .map((a) => `'${a}'`)
      .join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: w.cwd,
      env: { PATH: process.env.PATH ?? '', ...w.env },
      input: 'y\n',
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('Install alpha 1.0.0? [y/N] ');
    expect(run.status).toBe(0);
    expect(listing(w.installed)).toEqual(['alpha']);
  });
});
