import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Database } from '../store/sqlite.ts';
import { type BackupManifest, MANIFEST_NAME, parseManifest } from './manifest.ts';
import { readTar } from './tar-read.ts';

export class RestoreError extends Error {}

export interface RestoreResult {
  home: string;
  createdAt: string;
  files: number;
  packs: string[];
}

/** Where an archive's entries may go inside SATCHEL_HOME. */
const ALLOWED =
  /^(satchel\.db|packs\/[^/]+\/(pack\.db|USER\.md|MEMORY\.md|files(\/.+)?)|media\/files(\/.+)?)$/;

/**
 * Restores a `satchel backup` archive into `home`, which must not exist or be empty (never
 * over a live SATCHEL_HOME). Extracts into a sibling directory first; checks every file
 * against the manifest (present, size, SHA-256, nothing extra) and each database's
 * integrity; only then moves it into place. A failed restore leaves `home` as it was.
 */
export async function restoreBackup(options: { archive: string; home: string }) {
  const home = path.resolve(options.home);
  await requireEmpty(home);
  await mkdir(path.dirname(home), { recursive: true });
  const staging = await mkdtemp(path.join(path.dirname(home), `.${path.basename(home)}-restore-`));
  try {
    const { manifest, hashes } = await extract(options.archive, staging);
    verify(manifest, hashes);
    for (const file of manifest.files.filter((f) => f.path.endsWith('.db')))
      checkDatabase(path.join(staging, file.path), file.path);
    await rm(path.join(staging, MANIFEST_NAME));
    if (await exists(home)) await rmdir(home);
    await rename(staging, home);
    const packs = [
      ...new Set(manifest.files.flatMap((f) => /^packs\/([^/]+)\//.exec(f.path)?.[1] ?? [])),
    ];
    return {
      home,
      createdAt: manifest.created_at,
      files: manifest.files.length,
      packs,
    } satisfies RestoreResult;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
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

/** Writes each entry under `root` and hashes it; the manifest is read from its own entry. */
async function extract(archive: string, root: string) {
  const hashes = new Map<string, { size: number; sha256: string }>();
  let manifest: BackupManifest | undefined;
  const source = createReadStream(archive).pipe(createGunzip());
  try {
    for await (const entry of readTar(source)) {
      if (entry.type === 'directory') continue;
      const name = entry.name;
      if (name !== MANIFEST_NAME && (!ALLOWED.test(name) || name.split('/').includes('..')))
        throw new RestoreError(`${archive}: unexpected entry "${name}": not a satchel backup`);
      const target = path.join(root, name);
      await mkdir(path.dirname(target), { recursive: true });
      const hash = createHash('sha256');
      let size = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      await pipeline(entry.content, tap, createWriteStream(target, { mode: 0o600 }));
      if (name === MANIFEST_NAME) manifest = parseManifest(await readFile(target, 'utf8'));
      else hashes.set(name, { size, sha256: hash.digest('hex') });
    }
  } catch (error) {
    if (error instanceof RestoreError) throw error;
    throw new RestoreError(
      `${archive} cannot be read as a satchel backup: ${error instanceof Error ? error.message : error}`,
    );
  } finally {
    source.destroy();
  }
  if (!manifest) throw new RestoreError(`${archive} has no ${MANIFEST_NAME}: not a satchel backup`);
  return { manifest, hashes };
}

function verify(manifest: BackupManifest, hashes: Map<string, { size: number; sha256: string }>) {
  for (const file of manifest.files) {
    const got = hashes.get(file.path);
    if (!got) throw new RestoreError(`the archive is incomplete: ${file.path} is missing`);
    if (got.size !== file.size || got.sha256 !== file.sha256)
      throw new RestoreError(`the archive is damaged: ${file.path} does not match its checksum`);
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const name of hashes.keys())
    if (!listed.has(name))
      throw new RestoreError(`the archive holds ${name}, which its manifest does not list`);
}

function checkDatabase(file: string, name: string): void {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const result = String(db.pragma('integrity_check', { simple: true }));
    if (result !== 'ok') throw new RestoreError(`${name} fails its integrity check: ${result}`);
  } finally {
    db.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
