import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createPackAddCommand, packRemoveCommand } from '../../src/cli/pack-add.ts';
import { packListCommand } from '../../src/cli/pack-list.ts';
import { packValidateCommand } from '../../src/cli/pack-validate.ts';
import { type NpmFetch, npmPack } from '../../src/packs/install.ts';
import { recordingIo } from '../support/cli-io.ts';
import { npmPackOf, packSource } from '../support/pack-sources.ts';
import { bufferPeak, gzipWithZerosAfter, tarEntry, tarGz } from '../support/tar-entries.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-pack-add-test-');

/** A working directory with SATCHEL_HOME=./home and SATCHEL_PACKS=./packs (empty). */
function workspace() {
  const cwd = temp();
  const home = path.join(cwd, 'home');
  const env = { SATCHEL_HOME: home, SATCHEL_PACKS: path.join(cwd, 'packs') };
  const installed = path.join(home, 'installed-packs');
  return { cwd, home, env, installed };
}

async function run(
  w: ReturnType<typeof workspace>,
  command: 'add' | 'remove' | 'list',
  args: string[],
  fetchNpm?: NpmFetch,
) {
  const io = recordingIo(w.env, w.cwd);
  const cmd =
    command === 'add'
      ? createPackAddCommand(fetchNpm)
      : command === 'remove'
        ? packRemoveCommand
        : packListCommand;
  // No terminal here: pack add installs only with --yes.
  const code = await cmd.run(command === 'add' ? [...args, '--yes'] : args, io);
  return { code, out: io.out(), err: io.err() };
}

const MIB = 1024 * 1024;
const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe('satchel pack add', () => {
  it('installs from a folder, records where from, and pack list shows version and source', async () => {
    const w = workspace();
    const src = packSource(w.cwd, 'alpha');
    const added = await run(w, 'add', [src]);
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    expect(added.out).toContain(`Installed alpha 1.0.0 in ${path.join(w.installed, 'alpha')}`);
    expect(readFileSync(path.join(w.installed, 'alpha', 'pack.yml'), 'utf8')).toContain(
      'name: alpha',
    );
    const list = await run(w, 'list', []);
    expect(list.out).toContain(
      `  alpha  1.0.0  Alpha Garden\n    skills: /alpha_one, alpha_two\n    source: installed from ${src}\n`,
    );
  });

  it('installs from a .tgz made by npm pack (its top folder is package/)', async () => {
    const w = workspace();
    const tgz = npmPackOf(packSource(w.cwd, 'beta', { version: '2.1.0' }), w.cwd);
    const added = await run(w, 'add', [path.basename(tgz)]);
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    expect(added.out).toContain('Installed beta 2.1.0');
    expect(listing(w.installed)).toEqual(['beta']);
    expect(listing(path.join(w.installed, 'beta'))).toContain('SOUL.md');
  });

  it('installs npm:NAME@VERSION through the fetch step, without touching the network', async () => {
    const w = workspace();
    const tgz = npmPackOf(packSource(w.cwd, 'alpha', { name: 'gamma', display: 'Gamma' }), w.cwd);
    const asked: string[] = [];
    const fetchNpm: NpmFetch = async (spec, dir) => {
      asked.push(spec);
      const copy = path.join(dir, path.basename(tgz));
      writeFileSync(copy, readFileSync(tgz));
      return copy;
    };
    const added = await run(w, 'add', ['npm:satchel-pack-gamma@1.0.0'], fetchNpm);
    expect(added.code).toBe(0);
    expect(asked).toEqual(['satchel-pack-gamma@1.0.0']);
    const list = await run(w, 'list', []);
    expect(list.out).toContain('  gamma  1.0.0  Gamma\n');
    expect(list.out).toContain('source: installed from npm:satchel-pack-gamma@1.0.0\n');
  });

  it('refuses an invalid pack with nothing installed', async () => {
    const w = workspace();
    const src = packSource(w.cwd, 'alpha');
    const manifest = path.join(src, 'pack.yml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('tools: [', 'tools: [shell, '));
    const added = await run(w, 'add', [src]);
    expect(added.code).toBe(1);
    expect(added.err).toMatch(
      /^satchel pack add: The pack is not valid \(1 problem\(s\); first: .*unknown tool `shell`.*nothing was installed\.\n$/,
    );
    expect(listing(w.home)).toEqual([]);
  });

  it.each([
    [
      'a path outside the pack',
      tarEntry('package/../../evil.txt', { data: 'x' }),
      /"\.\." segment/,
    ],
    [
      'a link',
      tarEntry('package/link', { type: '2', link: '/etc/passwd' }),
      /link|not a regular file/i,
    ],
    ['an absolute path', tarEntry('/tmp/evil.txt', { data: 'x' }), /absolute/],
    [
      'a huge entry',
      tarEntry('package/big.sql', { size: 6 * 1024 * 1024 }),
      /big|size|larger|limit/i,
    ],
  ])('refuses a tampered .tgz holding %s, with nothing written', async (_what, bad, message) => {
    const w = workspace();
    const archive = path.join(w.cwd, 'tampered.tgz');
    writeFileSync(archive, tarGz(tarEntry('package/pack.yml', { data: 'name: evil\n' }), bad));
    const added = await run(w, 'add', [archive]);
    expect(added.code).toBe(1);
    expect(added.err).toMatch(/^satchel pack add: tampered\.tgz was refused: /);
    expect(added.err).toMatch(message);
    expect(listing(w.home)).toEqual([]);
    expect(listing(w.cwd).sort()).toEqual(['tampered.tgz']);
  });

  it('installs a .tgz with 64 MiB of zeros after the archive end, never holding them in memory', async () => {
    const w = workspace();
    const tgz = npmPackOf(packSource(w.cwd, 'beta'), w.cwd);
    const padded = path.join(w.cwd, 'padded.tgz');
    writeFileSync(padded, await gzipWithZerosAfter(gunzipSync(readFileSync(tgz)), 64 * MIB));
    const memory = bufferPeak();
    const added = await run(w, 'add', [padded]);
    const grew = memory.stop();
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    expect(listing(w.installed)).toEqual(['beta']);
    expect(grew).toBeLessThan(16 * MIB);
  });

  it('refuses a name already installed unless --upgrade, and a lower version unless --force', async () => {
    const w = workspace();
    expect((await run(w, 'add', [packSource(w.cwd, 'alpha', { version: '1.2.0' })])).code).toBe(0);
    const same = await run(w, 'add', [packSource(w.cwd, 'alpha', { version: '1.3.0' })]);
    expect(same.code).toBe(1);
    expect(same.err).toBe(
      'satchel pack add: alpha 1.2.0 is already installed; use --upgrade to replace it.\n',
    );
    const down = await run(w, 'add', [
      packSource(w.cwd, 'alpha', { version: '1.1.0' }),
      '--upgrade',
    ]);
    expect(down.code).toBe(1);
    expect(down.err).toBe(
      'satchel pack add: alpha 1.1.0 is older than the installed 1.2.0; use --force to go back.\n',
    );
    const installedYml = () => readFileSync(path.join(w.installed, 'alpha', 'pack.yml'), 'utf8');
    expect(installedYml()).toContain('version: 1.2.0');

    const up = await run(w, 'add', [packSource(w.cwd, 'alpha', { version: '1.3.0' }), '--upgrade']);
    expect(up.code).toBe(0);
    expect(up.out).toContain('Installed alpha 1.3.0 (was 1.2.0)');
    expect(installedYml()).toContain('version: 1.3.0');
    const forced = await run(w, 'add', [
      packSource(w.cwd, 'alpha', { version: '1.0.0' }),
      '--upgrade',
      '--force',
    ]);
    expect(forced.code).toBe(0);
    expect(installedYml()).toContain('version: 1.0.0');
    expect(listing(w.installed)).toEqual(['alpha']);
  });

  it('upgrades by semver precedence: a pre-release is below its release, alpha.10 above alpha.9', async () => {
    const w = workspace();
    const add = (version: string, ...flags: string[]) =>
      run(w, 'add', [packSource(w.cwd, 'alpha', { version }), '--upgrade', ...flags]);
    expect((await add('2.0.0-alpha.9')).code).toBe(0);
    const next = await add('2.0.0-alpha.10');
    expect(next.err).toBe('');
    expect(next.out).toContain('Installed alpha 2.0.0-alpha.10 (was 2.0.0-alpha.9)');
    expect((await add('2.0.0')).code).toBe(0);

    const back = await add('2.0.0-rc.1');
    expect(back.code).toBe(1);
    expect(back.err).toBe(
      'satchel pack add: alpha 2.0.0-rc.1 is older than the installed 2.0.0; use --force to go back.\n',
    );
    expect(readFileSync(path.join(w.installed, 'alpha', 'pack.yml'), 'utf8')).toContain(
      'version: 2.0.0\n',
    );
    // Build metadata does not count: the same version again is a reinstall, not a step back.
    expect((await add('2.0.0+rebuild.2')).code).toBe(0);
    expect((await add('2.0.0-rc.1', '--force')).code).toBe(0);
  });

  it('takes a full semver version, and replaces an installed pack without a readable one only with --force', async () => {
    const w = workspace();
    const full = await run(w, 'add', [
      packSource(w.cwd, 'alpha', { version: '1.0.0-rc.1+build.5' }),
    ]);
    expect(full.err).toBe('');
    expect(full.code).toBe(0);
    // Copied in by hand with a version satchel cannot compare.
    const installedYml = path.join(w.installed, 'alpha', 'pack.yml');
    writeFileSync(
      installedYml,
      readFileSync(installedYml, 'utf8').replace(/^version: .*$/m, 'version: v2'),
    );
    const add = (...flags: string[]) =>
      run(w, 'add', [packSource(w.cwd, 'alpha', { version: '1.0.0' }), '--upgrade', ...flags]);
    const refused = await add();
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      'satchel pack add: The installed alpha has no version satchel can compare (v2); use --force to replace it.\n',
    );
    expect(readFileSync(installedYml, 'utf8')).toContain('version: v2');
    expect((await add('--force')).code).toBe(0);
    expect(readFileSync(installedYml, 'utf8')).toContain('version: 1.0.0\n');
  });

  it('refuses a pack whose name a pack in SATCHEL_PACKS already has', async () => {
    const w = workspace();
    const bundled = path.join(w.cwd, 'packs');
    mkdirSync(bundled);
    cpSync(packSource(w.cwd, 'alpha'), path.join(bundled, 'alpha'), { recursive: true });
    const added = await run(w, 'add', [packSource(w.cwd, 'alpha', { version: '9.0.0' })]);
    expect(added.code).toBe(1);
    expect(added.err).toBe(
      `satchel pack add: A pack named alpha is already in ${path.join(bundled, 'alpha')} (SATCHEL_PACKS); nothing was installed.\n`,
    );
    expect(listing(w.home)).toEqual([]);
  });

  it('refuses a source that is neither a folder nor a .tgz, and a bad npm name', async () => {
    const w = workspace();
    writeFileSync(path.join(w.cwd, 'notes.txt'), 'x');
    const txt = await run(w, 'add', ['notes.txt']);
    expect(txt.code).toBe(1);
    expect(txt.err).toContain('is neither a pack folder nor a .tgz made by npm pack.');
    const npm = await run(w, 'add', ['npm:../evil'], async () => {
      throw new Error('must not be fetched');
    });
    expect(npm.code).toBe(1);
    expect(npm.err).toContain('is not an npm package name');
    expect(listing(w.home)).toEqual([]);
  });
});

describe('satchel pack remove', () => {
  it('removes the pack and keeps its data, unless --purge', async () => {
    const w = workspace();
    await run(w, 'add', [packSource(w.cwd, 'alpha')]);
    const data = path.join(w.home, 'packs', 'alpha');
    mkdirSync(data, { recursive: true });
    writeFileSync(path.join(data, 'MEMORY.md'), 'remember');
    const removed = await run(w, 'remove', ['alpha']);
    expect(removed.code).toBe(0);
    expect(removed.out).toBe(`Removed alpha; its data stays in ${data}.\n`);
    expect(listing(w.installed)).toEqual([]);
    expect(readFileSync(path.join(data, 'MEMORY.md'), 'utf8')).toBe('remember');

    await run(w, 'add', [packSource(w.cwd, 'alpha')]);
    const purged = await run(w, 'remove', ['alpha', '--purge']);
    expect(purged.out).toBe('Removed alpha and its data.\n');
    expect(existsSync(data)).toBe(false);

    const missing = await run(w, 'remove', ['alpha']);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(
      `satchel pack remove: No pack named alpha is installed in ${w.installed}.\n`,
    );
  });
});

describe('what pack add, remove and validate say to a newcomer', () => {
  it('pack remove of a bundled pack says where it is and how to stop using it', async () => {
    const w = workspace();
    const bundled = path.join(w.cwd, 'packs');
    mkdirSync(bundled);
    cpSync(packSource(w.cwd, 'alpha'), path.join(bundled, 'alpha'), { recursive: true });
    const removed = await run(w, 'remove', ['alpha']);
    expect(removed.code).toBe(1);
    expect(removed.err).toBe(
      `satchel pack remove: alpha was not installed with pack add: it is in ${path.join(bundled, 'alpha')}, and satchel loads every pack in the SATCHEL_PACKS folders (${bundled}). To stop using it, point SATCHEL_PACKS at a folder without it (copy the packs you keep into one).\n`,
    );
    expect(existsSync(path.join(bundled, 'alpha', 'pack.yml'))).toBe(true);
  });

  it('pack remove names the data folder only when there is one', async () => {
    const w = workspace();
    await run(w, 'add', [packSource(w.cwd, 'alpha')]);
    const removed = await run(w, 'remove', ['alpha']);
    expect(removed.code).toBe(0);
    expect(removed.out).toBe('Removed alpha.\n');
  });

  it('pack add of a bare word that is no folder suggests npm:NAME', async () => {
    const w = workspace();
    const added = await run(w, 'add', ['satchel-pack-plants']);
    expect(added.code).toBe(1);
    expect(added.err).toBe(
      `satchel pack add: ${path.join(w.cwd, 'satchel-pack-plants')} does not exist. To install the npm package satchel-pack-plants, run: npx satchel pack add npm:satchel-pack-plants\n`,
    );
    const relative = await run(w, 'add', ['./nowhere/plants']);
    expect(relative.err).toBe(
      `satchel pack add: ${path.join(w.cwd, 'nowhere', 'plants')} does not exist.\n`,
    );
  });

  it('pack add leaves out a .tgz at the pack folder top, and says so', async () => {
    const w = workspace();
    const src = packSource(w.cwd, 'alpha');
    writeFileSync(path.join(src, 'satchel-pack-alpha-1.0.0.tgz'), 'an old npm pack');
    mkdirSync(path.join(src, 'files'), { recursive: true });
    writeFileSync(path.join(src, 'files', 'kept.tgz'), 'inside the pack');
    const added = await run(w, 'add', [src]);
    expect(added.code).toBe(0);
    expect(added.out).toContain(
      "Left out satchel-pack-alpha-1.0.0.tgz: an archive at the pack folder's top (as npm pack leaves) is not part of the pack.\n",
    );
    const dir = path.join(w.installed, 'alpha');
    expect(listing(dir)).not.toContain('satchel-pack-alpha-1.0.0.tgz');
    expect(readFileSync(path.join(dir, 'files', 'kept.tgz'), 'utf8')).toBe('inside the pack');
  });

  it('pack validate of a folder that does not exist says so', async () => {
    const w = workspace();
    const io = recordingIo(w.env, w.cwd);
    const code = await packValidateCommand.run(['packs/nope'], io);
    expect(code).toBe(1);
    expect(io.err()).toBe(
      `satchel pack validate: ${path.join(w.cwd, 'packs', 'nope')} does not exist.\n`,
    );
  });
});

describe('the npm fetch step', () => {
  it('runs npm pack on the spec and returns the .tgz it wrote', async () => {
    const w = workspace();
    const dest = path.join(w.cwd, 'fetched');
    mkdirSync(dest);
    // A local folder is a spec npm pack takes offline, so the real step runs here.
    const tgz = await npmPack(packSource(w.cwd, 'alpha', { version: '1.4.0' }), dest);
    expect(tgz).toBe(path.join(dest, 'satchel-pack-alpha-1.4.0.tgz'));
    expect(existsSync(tgz)).toBe(true);
    await expect(npmPack(path.join(w.cwd, 'nowhere'), dest)).rejects.toThrow(
      /^npm could not fetch /,
    );
  });
});
