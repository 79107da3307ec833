/**
 * A restore writes nothing until it has read the whole backup (SPEC §11): every YAML file
 * within SPEC §14's limits, and every installed pack, which is new code on this machine,
 * shown with its permissions and accepted (--yes, or "y" on a terminal) as `pack add` asks.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { backupCommand } from '../../src/cli/backup.ts';
import type { CliCommand } from '../../src/cli/command.ts';
import { restoreCommand } from '../../src/cli/restore.ts';
import type { CliIo } from '../../src/core/cli-io.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { ALIAS_BOMB } from '../support/yaml-bomb.ts';

const tempDir = tempDirs('satchel-restore-review-');

/**
 * Runs a command in-process in `cwd` with `env`; `answer` is typed on a terminal when given
 * (else there is no terminal).
 */
async function run(
  command: CliCommand,
  args: string[],
  cwd: string,
  answer?: string,
  env: Record<string, string> = {},
) {
  let out = '';
  let err = '';
  const stdout = new PassThrough().on('data', (c) => {
    out += c;
  });
  const stderr = new PassThrough().on('data', (c) => {
    err += c;
  });
  const stdin = Object.assign(new PassThrough(), { isTTY: answer !== undefined });
  if (answer !== undefined) stdin.end(`${answer}\n`);
  const io: CliIo = { stdin, stdout, stderr, env, cwd };
  const code = await command.run(args, io);
  return { code, out, err };
}

/**
 * A backup of a home holding a database and what `fill` puts in it (a hostile tester's
 * home: anything satchel backs up); returns the archive.
 */
async function backupOf(fill: (home: string) => void): Promise<string> {
  const dir = tempDir();
  const home = path.join(dir, 'home');
  openCoreStore(home).close();
  fill(home);
  const archive = path.join(dir, 'b.tar.gz');
  const backup = await run(backupCommand, [archive], dir, undefined, { SATCHEL_HOME: home });
  expect(backup.err).toBe('');
  expect(backup.code).toBe(0);
  return archive;
}

/** An installed pack (the fixture beta) that declares an MCP server running a shell command. */
function installShellPack(home: string, marker: string): void {
  const dir = path.join(home, 'installed-packs', 'beta');
  cpSync(path.join(FIXTURE_PACKS, 'beta'), dir, { recursive: true });
  const manifest = path.join(dir, 'pack.yml');
  writeFileSync(
    manifest,
    `${readFileSync(manifest, 'utf8')}mcp:\n  - name: shell\n    command: sh\n    args: [-c, 'id > ${marker}']\n`,
  );
}

/** The folder a restore goes into, in a parent that must stay as it is when it refuses. */
function target() {
  const parent = tempDir();
  return { parent, home: path.join(parent, 'restored') };
}

describe('satchel restore of a backup with an installed pack', () => {
  it('shows its permissions and refuses without a terminal unless --yes, writing nothing', async () => {
    const marker = path.join(tempDir(), 'ran');
    const archive = await backupOf((home) => installShellPack(home, marker));
    const { parent, home } = target();

    const refused = await run(restoreCommand, [archive, '--home', home], parent);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('beta 0.2.0 (Beta Books) may use:');
    expect(refused.out).toContain(`    shell  stdio: sh -c id > ${marker}`);
    expect(refused.err).toBe(
      'satchel restore: there is no terminal to ask whether to restore the installed packs beta; nothing was restored. Run it with --yes to accept what they may do (above).\n',
    );
    expect(readdirSync(parent)).toEqual([]);

    const accepted = await run(restoreCommand, [archive, '--home', home, '--yes'], parent);
    expect(accepted.err).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.out).toContain(`    shell  stdio: sh -c id > ${marker}`);
    expect(accepted.out).toContain('installed packs: beta)');
    expect(existsSync(path.join(home, 'installed-packs', 'beta', 'pack.yml'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('asks on a terminal: "n" writes nothing and exits 1, "y" restores', async () => {
    const archive = await backupOf((home) => installShellPack(home, path.join(home, 'ran')));
    const { parent, home } = target();

    const no = await run(restoreCommand, [archive, '--home', home], parent, 'n');
    expect(no.out).toMatch(/Restore the backup with beta\? \[y\/N\] $/);
    expect(no.err).toBe(
      'satchel restore: nothing was restored: you did not accept its installed packs\n',
    );
    expect(no.code).toBe(1);
    expect(readdirSync(parent)).toEqual([]);

    const yes = await run(restoreCommand, [archive, '--home', home], parent, 'y');
    expect(yes.err).toBe('');
    expect(yes.code).toBe(0);
    expect(readdirSync(home).sort()).toEqual(['installed-packs', 'satchel.db']);
  });

  it('names a pack whose pack.yml satchel would skip, and still asks', async () => {
    const archive = await backupOf((home) => {
      mkdirSync(path.join(home, 'installed-packs', 'odd'), { recursive: true });
      writeFileSync(path.join(home, 'installed-packs', 'odd', 'pack.yml'), 'name: odd\n');
    });
    const { parent, home } = target();
    const refused = await run(restoreCommand, [archive, '--home', home], parent);
    expect(refused.out).toContain(
      'odd: its pack.yml is not valid (version: is required), so satchel will skip it\n',
    );
    expect(refused.code).toBe(1);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('asks nothing when the backup brings no installed pack', async () => {
    const archive = await backupOf(() => {});
    const { parent, home } = target();
    const restore = await run(restoreCommand, [archive, '--home', home], parent);
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).not.toContain('installed pack');
  });
});

describe('satchel restore of a backup with YAML past SPEC §14 limits', () => {
  const refusals: [string, (home: string) => void, string][] = [
    [
      'a 2 MB models.yaml',
      (home) => writeFileSync(path.join(home, 'models.yaml'), 'openai:x: {}\n'.repeat(160_000)),
      'models.yaml is 2.0 MB; satchel reads at most 1 MB of YAML from one file',
    ],
    [
      'a models.yaml of 1,001 entries',
      (home) =>
        writeFileSync(
          path.join(home, 'models.yaml'),
          Array.from({ length: 1001 }, (_, i) => `openai:m${i}: { input: 1, output: 2 }\n`).join(
            '',
          ),
        ),
      'models.yaml line 1 has 1,001 entries in one mapping; satchel reads at most 1,000',
    ],
    [
      'an alias bomb in models.yaml',
      (home) => writeFileSync(path.join(home, 'models.yaml'), ALIAS_BOMB),
      'models.yaml expands its aliases (*name) more than 100 times; satchel expands at most 100',
    ],
    [
      "an alias bomb in an installed pack's pack.yml (before showing any permission)",
      (home) => {
        installShellPack(home, path.join(home, 'ran'));
        const manifest = path.join(home, 'installed-packs', 'beta', 'pack.yml');
        writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}${ALIAS_BOMB}`);
      },
      'installed-packs/beta/pack.yml expands its aliases (*name) more than 100 times; satchel expands at most 100',
    ],
  ];

  it.each(refusals)('refuses %s in one sentence, writing nothing', async (_, fill, reason) => {
    const archive = await backupOf(fill);
    const { parent, home } = target();
    const restore = await run(restoreCommand, [archive, '--home', home, '--yes'], parent);
    expect(restore.err).toBe(`satchel restore: ${archive} cannot be restored: ${reason}\n`);
    expect(restore.out).toBe('');
    expect(restore.code).toBe(1);
    expect(readdirSync(parent)).toEqual([]);
  });
});
