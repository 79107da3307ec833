import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ArchiveError, extractSafely } from '../backup/archive.ts';
import { readYamlFile } from '../core/yaml-source.ts';
import { makePrivateDir, privateTree } from '../store/file-modes.ts';
import { installedPacksDir, SOURCE_FILE } from './installed.ts';
import { type Manifest, manifestSchema } from './manifest.ts';
import { refusedLink } from './pack-files.ts';
import { formatProblem } from './problems.ts';
import { compareVersions, VERSION } from './semver.ts';
import { validatePack } from './validate.ts';

/** A refusal of `satchel pack add` / `pack remove`: its message is one sentence for the user. */
export class PackInstallError extends Error {
  override name = 'PackInstallError';
}

/** Fetches `spec` (`name[@version]`) from the npm registry as a .tgz in `dir`; returns its path. */
export type NpmFetch = (spec: string, dir: string) => Promise<string>;

/** Caps for a pack archive: packs are text and a little SQL, never this big. */
const LIMITS = {
  maxEntries: 2_000,
  maxEntryBytes: 5 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
};

/** Folders of a source directory that are never part of the pack. */
const SKIPPED = new Set(['.git', 'node_modules']);

/**
 * Asked after the pack is validated and before anything is copied: the manifest of the pack
 * to install and, on --upgrade, the installed one's (undefined when it cannot be read).
 * Resolves true to go on; false (or a PackInstallError it throws) refuses.
 */
export type ApproveInstall = (
  next: Manifest,
  previous: Manifest | undefined,
  upgrade: boolean,
) => Promise<boolean>;

export interface InstallOptions {
  source: string;
  home: string;
  cwd: string;
  /** SATCHEL_PACKS: a pack of the same name there would clash with the installed one. */
  packDirs: readonly string[];
  upgrade?: boolean;
  force?: boolean;
  fetchNpm?: NpmFetch;
  /** The owner's consent to the pack's permissions (default: given). */
  approve?: ApproveInstall;
}

export interface Installed {
  name: string;
  version: string;
  dir: string;
  from: string;
  /** The version it replaced, on --upgrade. */
  previous?: string;
  /** Archives at the source folder's top that were not copied (`satchel-pack-x-1.0.0.tgz`). */
  leftOut?: string[];
}

/**
 * Installs the pack at `source` (a directory, an `npm pack` .tgz, or `npm:<name>[@<version>]`)
 * into SATCHEL_HOME/installed-packs/<name>/. The pack is validated where it was unpacked,
 * before anything is written under SATCHEL_HOME; the copy lands under its name only whole.
 */
export async function installPack(options: InstallOptions): Promise<Installed> {
  const temp = mkdtempSync(path.join(tmpdir(), 'satchel-pack-add-'));
  try {
    const { dir, from } = await stage(options, temp);
    refuseLinks(dir);
    const leftOut: string[] = [];
    const staged = underItsName(dir, path.join(temp, 'staged'), leftOut);
    const installed = await place(staged, from, options);
    return leftOut.length > 0 ? { ...installed, leftOut: leftOut.sort() } : installed;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The pack's folder on disk (the source itself, or unpacked in `temp`) and how to name its source. */
async function stage(
  options: InstallOptions,
  temp: string,
): Promise<{ dir: string; from: string }> {
  const { source, cwd } = options;
  if (source.startsWith('npm:')) {
    const spec = source.slice('npm:'.length);
    if (!/^(@[\w.-]+\/)?[\w.-]+(@[\w.^~<>=*-]+)?$/.test(spec))
      throw new PackInstallError(
        `"${source}" is not an npm package name like npm:name or npm:name@1.0.0.`,
      );
    const fetched = await (options.fetchNpm ?? npmPack)(spec, temp);
    return { dir: await unpack(fetched, path.join(temp, 'unpacked')), from: source };
  }
  const resolved = path.resolve(cwd, source);
  if (!existsSync(resolved))
    throw new PackInstallError(
      // A bare word is most likely a package name the owner saw on npm.
      isBareName(source)
        ? `${resolved} does not exist. To install the npm package ${source}, run: npx satchel pack add npm:${source}`
        : `${resolved} does not exist.`,
    );
  if (statSync(resolved).isDirectory()) return { dir: resolved, from: resolved };
  if (!/\.(tgz|tar\.gz)$/.test(resolved))
    throw new PackInstallError(`${resolved} is neither a pack folder nor a .tgz made by npm pack.`);
  return { dir: await unpack(resolved, path.join(temp, 'unpacked')), from: resolved };
}

/** A source with no path in it that could name an npm package (`satchel-pack-plants`). */
function isBareName(source: string): boolean {
  return (
    /^(@[\w.-]+\/)?[\w-][\w.-]*(@[\w.^~<>=*-]+)?$/.test(source) && !/\.(tgz|tar\.gz)$/.test(source)
  );
}

/** An archive at a pack folder's top: what `npm pack` leaves there, never part of the pack. */
const isArchive = (name: string) => name.endsWith('.tgz');

/**
 * A copy of the pack in `dir` in a folder named as its pack.yml names it (a pack's folder
 * must bear its name; npm's archives call it `package/`), without `.git`, `node_modules` or
 * a .tgz at its top (`npm pack` run in the folder leaves one; the names are in `leftOut`).
 */
function underItsName(dir: string, parent: string, leftOut: string[]): string {
  const manifest = path.join(dir, 'pack.yml');
  const named = existsSync(manifest)
    ? (readYamlFile(manifest).value as { name?: unknown } | null)?.name
    : undefined;
  const name = typeof named === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(named) ? named : 'pack';
  const copy = path.join(parent, name);
  // refuseLinks let through only links to files inside the pack: copied as those files.
  cpSync(dir, copy, {
    recursive: true,
    dereference: true,
    filter: (file) => {
      if (path.dirname(file) !== dir) return true;
      const name = path.basename(file);
      if (!isArchive(name) || !statSync(file).isFile()) return !SKIPPED.has(name);
      leftOut.push(name);
      return false;
    },
  });
  return copy;
}

/**
 * Refuses a pack folder holding a link that leads outside it, or to a folder: copying would
 * follow it, and a file outside the pack (SOUL.md → ~/.ssh/id_rsa) would reach the model.
 */
function refuseLinks(dir: string): void {
  const found = refusedLink(dir, SKIPPED);
  if (!found) return;
  throw new PackInstallError(
    found.reason === 'outside'
      ? `${found.link} is a link that leads outside the pack; nothing was installed.`
      : `${found.link} is a link to a folder, which pack add does not copy; nothing was installed.`,
  );
}

/** Extracts an `npm pack` archive safely; the pack is its one top folder (`package/`). */
async function unpack(archive: string, into: string): Promise<string> {
  try {
    await extractSafely(archive, into, LIMITS);
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error;
    throw new PackInstallError(`${path.basename(archive)} was refused: ${error.message}`);
  }
  const top = readdirSync(into);
  if (top.length !== 1 || !statSync(path.join(into, top[0]!)).isDirectory())
    throw new PackInstallError(
      `${path.basename(archive)} does not hold one top folder as npm pack makes.`,
    );
  return path.join(into, top[0]!);
}

/** `npm pack <spec>` into `dir`, install scripts off: it only downloads the tarball. */
export const npmPack: NpmFetch = async (spec, dir) => {
  const run = promisify(execFile);
  try {
    const { stdout } = await run(
      'npm',
      ['pack', spec, '--pack-destination', dir, '--ignore-scripts', '--json'],
      { cwd: dir, timeout: 120_000 },
    );
    const [first] = JSON.parse(stdout) as { filename: string }[];
    if (!first) throw new Error('npm pack printed no file');
    return path.join(dir, first.filename);
  } catch (error) {
    const detail =
      (error as { stderr?: string }).stderr?.trim().split('\n').at(-1) ?? (error as Error).message;
    throw new PackInstallError(`npm could not fetch ${spec}: ${detail}`);
  }
};

/**
 * Validates the staged pack, checks its name and version against what is there, asks for
 * the owner's consent, and copies it in, replacing an older one on --upgrade.
 */
async function place(dir: string, from: string, options: InstallOptions): Promise<Installed> {
  const validation = validatePack(dir, options.home);
  const { pack } = validation;
  if (!pack) {
    const first = validation.problems[0];
    const detail = first
      ? formatProblem({ ...first, file: path.relative(dir, first.file) || '.' })
      : 'unknown problem';
    throw new PackInstallError(
      `The pack is not valid (${validation.problems.length} problem(s); first: ${detail}); nothing was installed.`,
    );
  }
  const { name } = pack;
  const version = pack.manifest.version;
  const root = installedPacksDir(options.home);
  const target = path.join(root, name);
  const previous = refuseClashes(name, version, target, options);
  const approve = options.approve ?? (async () => true);
  const installed = existsSync(target);
  if (!(await approve(pack.manifest, installed ? installedManifest(target) : undefined, installed)))
    throw new PackInstallError(`${name} ${version} was not installed.`);
  copyIn(dir, root, name, `${JSON.stringify({ from, version }, null, 2)}\n`);
  return { name, version, dir: target, from, ...(previous ? { previous } : {}) };
}

/**
 * Refuses a name taken in SATCHEL_PACKS, or installed without --upgrade, and a step back
 * without --force. Returns the installed version being replaced, if any.
 */
function refuseClashes(
  name: string,
  version: string,
  target: string,
  options: InstallOptions,
): string | undefined {
  const clash = options.packDirs.map((d) => path.join(d, name)).find((d) => existsSync(d));
  if (clash)
    throw new PackInstallError(
      `A pack named ${name} is already in ${clash} (SATCHEL_PACKS); nothing was installed.`,
    );
  if (!existsSync(target)) return undefined;
  const previous = installedVersion(target);
  if (!options.upgrade)
    throw new PackInstallError(
      `${name} ${previous ?? ''} is already installed; use --upgrade to replace it.`.replace(
        '  ',
        ' ',
      ),
    );
  // A pack copied in by hand may carry no version, or one that cannot be compared.
  if (!(previous && VERSION.test(previous)) && !options.force)
    throw new PackInstallError(
      `The installed ${name} has no version satchel can compare (${previous ?? 'none'}); use --force to replace it.`,
    );
  if (previous && compareVersions(version, previous) < 0 && !options.force)
    throw new PackInstallError(
      `${name} ${version} is older than the installed ${previous}; use --force to go back.`,
    );
  return previous;
}

/** Copies the pack in beside its place and moves it there only whole, with its source record. */
function copyIn(dir: string, root: string, name: string, source: string): void {
  const target = path.join(root, name);
  const partial = path.join(root, `.${name}.partial`);
  const old = path.join(root, `.${name}.old`);
  rmSync(partial, { recursive: true, force: true });
  makePrivateDir(root);
  cpSync(dir, partial, { recursive: true });
  writeFileSync(path.join(partial, SOURCE_FILE), source);
  // cp keeps the source's modes; what lands in SATCHEL_HOME is its owner's alone.
  privateTree(partial, true);
  rmSync(old, { recursive: true, force: true });
  if (existsSync(target)) renameSync(target, old);
  renameSync(partial, target);
  rmSync(old, { recursive: true, force: true });
}

/** The installed pack's manifest, when it is still valid (else the upgrade shows all as new). */
function installedManifest(dir: string): Manifest | undefined {
  const file = path.join(dir, 'pack.yml');
  if (!existsSync(file)) return undefined;
  const parsed = manifestSchema.safeParse(readYamlFile(file).value);
  return parsed.success ? parsed.data : undefined;
}

/** The installed pack's version, from its own pack.yml (a hand-copied one has no source record). */
function installedVersion(dir: string): string | undefined {
  const manifest = path.join(dir, 'pack.yml');
  if (!existsSync(manifest)) return undefined;
  const version = (readYamlFile(manifest).value as { version?: unknown } | null)?.version;
  return typeof version === 'string' ? version : undefined;
}
