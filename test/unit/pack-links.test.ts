import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPackAddCommand } from '../../src/cli/pack-add.ts';
import { inspectPack } from '../../src/packs/loader.ts';
import { recordingIo } from '../support/cli-io.ts';
import { packSource } from '../support/pack-sources.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-pack-links-');

/** A workspace with a pack source (fixture alpha) and a private file and folder beside it. */
function workspace() {
  const cwd = temp();
  const home = path.join(cwd, 'home');
  const secret = path.join(cwd, 'id_rsa');
  writeFileSync(secret, 'PRIVATE KEY OUTSIDE THE PACK');
  const folder = path.join(cwd, 'elsewhere');
  mkdirSync(folder);
  writeFileSync(
    path.join(folder, 'SKILL.md'),
    '---\nname: alpha_two\ndescription: OUTSIDE SKILL TEXT\n---\nOUTSIDE BODY\n',
  );
  // Named as its pack.yml names it, so the loader can check it in place too.
  const src = path.join(cwd, 'alpha');
  renameSync(packSource(cwd, 'alpha'), src);
  return { cwd, home, secret, folder, src, installed: path.join(home, 'installed-packs') };
}

async function add(w: ReturnType<typeof workspace>) {
  const io = recordingIo({ SATCHEL_HOME: w.home, SATCHEL_PACKS: path.join(w.cwd, 'none') }, w.cwd);
  const code = await createPackAddCommand().run([w.src, '--yes'], io);
  return { code, out: io.out(), err: io.err() };
}

const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** Replaces `file` in the pack with a link to `target`. */
function link(w: ReturnType<typeof workspace>, file: string, target: string): void {
  rmSync(path.join(w.src, file), { recursive: true, force: true });
  symlinkSync(target, path.join(w.src, file));
}

describe('links in a pack folder', () => {
  it('pack add refuses a SOUL.md that links outside the pack, naming it, with nothing copied', async () => {
    const w = workspace();
    link(w, 'SOUL.md', w.secret);
    const done = await add(w);
    expect(done.code).toBe(1);
    expect(done.err).toBe(
      'satchel pack add: SOUL.md is a link that leads outside the pack; nothing was installed.\n',
    );
    expect(done.out).toBe('');
    expect(listing(w.home)).toEqual([]);
  });

  it('pack add refuses a skill folder that links outside the pack', async () => {
    const w = workspace();
    link(w, path.join('skills', 'alpha_two'), w.folder);
    const done = await add(w);
    expect(done.code).toBe(1);
    expect(done.err).toBe(
      `satchel pack add: ${path.join('skills', 'alpha_two')} is a link that leads outside the pack; nothing was installed.\n`,
    );
    expect(listing(w.home)).toEqual([]);
  });

  it('pack add copies a link to a file inside the pack as that file', async () => {
    const w = workspace();
    link(w, 'SOUL.md', path.join('templates', 'USER.md'));
    const done = await add(w);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    const soul = path.join(w.installed, 'alpha', 'SOUL.md');
    expect(lstatSync(soul).isFile()).toBe(true);
    expect(readFileSync(soul, 'utf8')).toContain('ALPHA-USER-NOTE');
    expect(inspectPack(path.join(w.installed, 'alpha')).pack?.soul).toContain('ALPHA-USER-NOTE');
  });

  it('the loader reads no file through a link that leaves the pack: the pack is invalid', () => {
    const w = workspace();
    link(w, 'SOUL.md', w.secret);
    link(w, path.join('skills', 'alpha_two'), w.folder);
    const inspection = inspectPack(w.src);
    expect(inspection.pack).toBeUndefined();
    expect(inspection.problems).toEqual([
      {
        file: path.join(w.src, 'skills', 'alpha_two', 'SKILL.md'),
        field: '(file)',
        problem: 'is a link that leads outside the pack folder; satchel does not read it',
      },
      {
        file: path.join(w.src, 'SOUL.md'),
        field: '(file)',
        problem: 'is a link that leads outside the pack folder; satchel does not read it',
      },
    ]);
  });
});
