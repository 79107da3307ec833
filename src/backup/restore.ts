import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Database } from '../store/sqlite.ts';
import {
  ArchiveError,
  type ArchiveFile,
  type ExtractOptions,
  extractSafely,
  readFirstEntry,
} from './archive.ts';

import { type BackupManifest, MANIFEST_NAME, parseManifest } from './manifest.ts';
import { createRestoreReview, oversizedYaml, type RestoredPack } from './restore-review.ts';

/** A restore refused or failed; the message says what is wrong in one sentence. */
export class RestoreError extends Error {}

export interface RestoreResult {
  home: string;
  createdAt: string;
  files: number;
  /** The packs whose data (packs/<name>/) the backup holds. */
  packs: string[];
  /** The packs installed with `pack add` (installed-packs/<name>/) it brings back. */
  installedPacks: string[];
}

/**
 * Asked before anything is written when the backup brings installed packs, which are code
 * that would run here: shows what each may do and resolves true to go on. False (or a
 * RestoreError it throws) refuses the restore.
 */
export type ApproveRestore = (packs: RestoredPack[]) => Promise<boolean>;

/** A manifest lists each file in ~200 bytes: this is room for a few hundred thousand. */
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Restores a `satchel backup` archive into `home`, which must not exist or be empty (never
 * over a live SATCHEL_HOME). Reads the manifest (the archive's first entry), then reads the
 * whole archive without writing: every entry must be a file the manifest lists, with the
 * size it lists (checked on its header, before its bytes), and the SHA-256 it lists; every
 * YAML file within SPEC §14's limits. Then, when it brings installed packs, `approve` is
 * asked. Only then is it extracted, into a sibling directory; each database's integrity is
 * checked; and it is moved into place. A refused or failed restore leaves `home` as it was
 * and writes nothing else.
 */
export async function restoreBackup(options: {
  archive: string;
  home: string;
  approve: ApproveRestore;
}): Promise<RestoreResult> {
  const home = path.resolve(options.home);
  const archive = path.resolve(options.archive);
  await requireEmpty(home);
  if (!(await exists(archive))) throw new RestoreError(`${archive} does not exist`);
  const manifest = await readManifest(archive);
  const oversized = oversizedYaml(manifest);
  if (oversized) throw new RestoreError(`${archive} cannot be restored: ${oversized}`);
  const review = createRestoreReview(manifest);
  const suffix = randomBytes(4).toString('hex');
  const staging = path.join(path.dirname(home), `.${path.basename(home)}-restore-${suffix}`);
  try {
    await extractSafely(archive, staging, {
      ...limitsOf(manifest),
      read: review.reader,
      async verify(files) {
        checkFiles(manifest, files);
        const packs = review.packs();
        if (packs.length > 0 && !(await options.approve(packs)))
          throw new RestoreError('nothing was restored: you did not accept its installed packs');
      },
    });
    for (const file of manifest.files.filter((f) => f.path.endsWith('.db')))
      checkDatabase(path.join(staging, file.path), file.path);
    await rm(path.join(staging, MANIFEST_NAME));
    if (await exists(home)) await rmdir(home);
    await rename(staging, home);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw toRestoreError(error, archive);
  }
  const packs = [
    ...new Set(manifest.files.flatMap((f) => /^packs\/([^/]+)\//.exec(f.path)?.[1] ?? [])),
  ];
  return {
    home,
    createdAt: manifest.created_at,
    files: manifest.files.length,
    packs,
    installedPacks: review.packs().map((p) => p.name),
  };
}

async function requireEmpty(home: string): Promise<void> {
  if (!(await exists(home))) return;
  if (!(await stat(home)).isDirectory()) throw new RestoreError(`${home} is not a directory`);
  if ((await readdir(home)).length > 0)
    throw new RestoreError(
      `${home} is not empty. A restore never overwrites data: stop satchel, move that ` +
        'directory aside, and run the restore again (or restore into a new directory with --home).',
    );
}

/** The manifest, which satchel writes as the archive's first entry. */
async function readManifest(archive: string): Promise<BackupManifest & { bytes: number }> {
  let first: Awaited<ReturnType<typeof readFirstEntry>>;
  try {
    first = await readFirstEntry(archive, MANIFEST_MAX_BYTES);
  } catch (error) {
    throw toRestoreError(error, archive);
  }
  if (first?.path !== MANIFEST_NAME)
    throw new RestoreError(
      `${archive} is not a satchel backup: it does not start with ${MANIFEST_NAME}`,
    );
  try {
    return { ...parseManifest(first.content.toString('utf8')), bytes: first.content.length };
  } catch (error) {
    throw new RestoreError(`${archive} is not a satchel backup: ${(error as Error).message}`);
  }
}

/** Every entry is the manifest or a file it lists, of the size it lists; nothing else. */
function limitsOf(manifest: BackupManifest & { bytes: number }): ExtractOptions {
  const sizes = new Map(manifest.files.map((f) => [f.path, f.size]));
  const largest = manifest.files.reduce((n, f) => Math.max(n, f.size), manifest.bytes);
  const total = manifest.files.reduce((n, f) => n + f.size, manifest.bytes);
  return {
    maxEntries: manifest.files.length + 1,
    maxEntryBytes: largest,
    maxTotalBytes: total,
    // Each entry is bounded by its manifest size instead: a database of empty pages may
    // compress better than tar's default ratio allows.
    maxRatio: Number.POSITIVE_INFINITY,
    accept({ path: name, type, size, index }) {
      if (index === 0)
        return name === MANIFEST_NAME && size === manifest.bytes ? undefined : 'not the manifest';
      if (type !== 'file') return 'a directory entry, which satchel does not write';
      const listed = sizes.get(name);
      if (listed === undefined) return 'its manifest does not list it: not a satchel backup';
      if (size !== listed) return `${size} bytes, but its manifest says ${listed}: it is damaged`;
      return undefined;
    },
  };
}

/** The files read are the manifest's, each of its size and SHA-256. */
function checkFiles(manifest: BackupManifest, files: readonly ArchiveFile[]) {
  const hashes = new Map(files.map((f) => [f.path, f]));
  for (const file of manifest.files) {
    const got = hashes.get(file.path);
    if (!got) throw new RestoreError(`the archive is incomplete: ${file.path} is missing`);
    if (got.size !== file.size || got.sha256 !== file.sha256)
      throw new RestoreError(`the archive is damaged: ${file.path} does not match its checksum`);
  }
}

/** Opens the database and runs SQLite's integrity check; any failure is one sentence. */
function checkDatabase(file: string, name: string): void {
  let result: string;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      result = String(db.pragma('integrity_check', { simple: true }));
    } finally {
      db.close();
    }
  } catch (error) {
    result = (error as Error).message;
  }
  if (result !== 'ok')
    throw new RestoreError(
      `${name} in this backup is not a usable database (${result}); nothing was restored — ` +
        'use an older backup',
    );
}

function toRestoreError(error: unknown, archive: string): RestoreError {
  if (error instanceof RestoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ArchiveError)
    return new RestoreError(`${archive} cannot be restored: ${message}`);
  return new RestoreError(`the restore failed: ${message}`);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
