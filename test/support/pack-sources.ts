import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE_PACKS } from './harness.ts';

/**
 * A copy of fixture pack `fixture` in a fresh folder of `parent`, as pack `name` (display
 * name `display`) at `version`, with the package.json a pack published to npm has.
 */
export function packSource(
  parent: string,
  fixture: string,
  o: { name?: string; display?: string; version?: string } = {},
): string {
  const name = o.name ?? fixture;
  const dir = mkdtempSync(path.join(parent, 'src-'));
  cpSync(path.join(FIXTURE_PACKS, fixture), dir, { recursive: true });
  const manifest = path.join(dir, 'pack.yml');
  let yml = readFileSync(manifest, 'utf8').replace(/^name: .*$/m, `name: ${name}`);
  if (o.version) yml = yml.replace(/^version: .*$/m, `version: ${o.version}`);
  if (o.display) yml = yml.replace(/^display_name: .*$/m, `display_name: ${o.display}`);
  writeFileSync(manifest, yml);
  const pkg = {
    name: `satchel-pack-${name}`,
    version: o.version ?? '1.0.0',
    description: `The ${name} pack for satchel.`,
    keywords: ['satchel-pack'],
    license: 'MIT',
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return dir;
}

/** The .tgz `npm pack` makes of the folder `dir`, written in `dest` (offline: a local folder). */
export function npmPackOf(dir: string, dest: string): string {
  const out = execFileSync(
    'npm',
    ['pack', dir, '--pack-destination', dest, '--ignore-scripts', '--json', '--offline'],
    { cwd: dest, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'silent' } },
  );
  const [first] = JSON.parse(out) as { filename: string }[];
  return path.join(dest, first!.filename);
}
