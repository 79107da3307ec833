import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, statfs } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create, Unpack } from 'tar';
import { feedTar } from './archive-feed.ts';
import {
  ArchiveError,
  type ArchiveFile,
  type ArchiveLimits,
  type ContentReader,
  createHeaderCheck,
  describe,
  inspectArchive,
  printable,
  sha256Of,
  unsafeArchivePath,
} from './archive-scan.ts';

export {
  ArchiveError,
  type ArchiveFile,
  type ArchiveHeader,
  type ArchiveLimits,
  type ContentReader,
  readFirstEntry,
  sha256Of,
  unsafeArchivePath,
} from './archive-scan.ts';

/**
 * Writes `archive` (a gzip-compressed tar, readable by its owner only) holding `names`, the
 * paths of regular files relative to `root`, in that order. Names that do not fit the old
 * header fields (long, or not ASCII) get pax records, as GNU tar and bsdtar read them. The
 * archive appears under its name only when complete. A name that `extractSafely` would
 * refuse is refused here, so every archive written can be read back.
 */
export async function writeArchive(
  archive: string,
  root: string,
  names: readonly string[],
): Promise<void> {
  for (const name of names) {
    const unsafe = unsafeArchivePath(name);
    if (unsafe) throw new ArchiveError(`"${printable(name)}" cannot be archived: ${unsafe}`);
  }
  const partial = `${archive}.partial`;
  try {
    // Every name starts with a fixed prefix, never "@" (which tar reads as "add this archive").
    const pack = create({ gzip: true, cwd: root, portable: true, strict: true }, [...names]);
    await pipeline(pack, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, archive);
  } finally {
    await rm(partial, { force: true });
  }
}

export interface ExtractOptions extends ArchiveLimits {
  /** Files whose content the caller reads in the first pass, before anything is written. */
  read?: ContentReader;
  /**
   * The files the archive holds, checked by the caller before anything is written (it may
   * ask someone): throw to refuse.
   */
  verify?(files: readonly ArchiveFile[]): void | Promise<void>;
  /** Bytes free on the file system holding `dir` (default: statfs); for tests. */
  freeSpace?(dir: string): Promise<number>;
}

/**
 * Extracts `file` into `dir` (created; it must not exist or be empty), writing nothing
 * until the whole archive is known good: a first pass reads every entry without writing,
 * checking each header against `limits` before its bytes (only regular files and
 * directories, relative names without `..`, sizes per file and in total, the entry count),
 * hashing the files and handing those `read` wants to it; then `verify`; then the free space. Only then does tar extract it,
 * with the same checks again, owner-only modes, no owners from the archive; and what
 * landed in `dir` is compared with the first pass. A refusal rejects with an ArchiveError
 * and removes `dir`. Returns the files, in archive order.
 */
export async function extractSafely(
  file: string,
  dir: string,
  options: ExtractOptions,
): Promise<ArchiveFile[]> {
  await requireEmpty(dir);
  const files = await inspectArchive(file, options, options.read);
  await options.verify?.(files);
  const total = files.reduce((n, f) => n + f.size, 0);
  await requireSpace(path.dirname(path.resolve(dir)), total, options.freeSpace ?? statfsFree);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await unpack(file, dir, options);
    await compare(dir, files);
    return files;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error instanceof ArchiveError ? error : new ArchiveError(describe(error));
  }
}

/** tar's extraction, refusing any entry the first pass would have refused. */
async function unpack(file: string, dir: string, limits: ArchiveLimits): Promise<void> {
  const check = createHeaderCheck(limits);
  let refused: unknown;
  const unpacker = new Unpack({
    cwd: dir,
    strict: true,
    brotli: false,
    zstd: false,
    dmode: 0o700,
    preserveOwner: false,
    filter: (_path, entry) => {
      if (refused || !('type' in entry)) return false;
      try {
        check(entry);
        // Owner-only, whatever the archive says: what is restored is private.
        entry.mode = entry.type === 'Directory' ? 0o700 : 0o600;
        return true;
      } catch (error) {
        refused = error;
        return false;
      }
    },
  });
  let cancel = () => {};
  try {
    await new Promise<void>((resolve, reject) => {
      unpacker.on('close', resolve);
      unpacker.on('error', reject);
      cancel = feedTar(file, unpacker, limits, reject);
    });
  } finally {
    cancel();
  }
  if (refused) throw refused;
}

/** What is in `dir` must be exactly `files` (and their directories), byte for byte. */
async function compare(dir: string, files: readonly ArchiveFile[]): Promise<void> {
  const found = await walk(dir, '');
  const expected = new Map(files.map((f) => [f.path, f]));
  for (const name of found) {
    const want = expected.get(name);
    if (!want || (await sha256Of(path.join(dir, name))) !== want.sha256)
      throw new ArchiveError(`"${printable(name)}" changed between reading and extracting`);
    expected.delete(name);
  }
  const [missing] = expected.keys();
  if (missing !== undefined)
    throw new ArchiveError(`"${printable(missing)}" was not extracted (a name clash?)`);
}

/** The regular files under `dir`, relative; anything else (a link, a device) is refused. */
async function walk(dir: string, relative: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, relative), { withFileTypes: true })) {
    const name = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(dir, name)));
    else if (entry.isFile()) out.push(name);
    else
      throw new ArchiveError(`"${printable(name)}" was extracted as something other than a file`);
  }
  return out;
}

async function requireEmpty(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory() || (await readdir(dir)).length > 0)
    throw new ArchiveError(`${dir} must be a new or empty directory to extract into`);
}

/**
 * Refuses when the file system holding `dir` has less than `bytes` free, and a margin: an
 * extraction must not fill the disk a running satchel writes to.
 */
async function requireSpace(
  dir: string,
  bytes: number,
  freeSpace: (dir: string) => Promise<number>,
): Promise<void> {
  const existing = await nearestExisting(dir);
  const free = await freeSpace(existing);
  if (bytes + 16 * 1024 * 1024 > free)
    throw new ArchiveError(
      `extracting needs ${bytes} bytes, but only ${free} are free in ${existing}`,
    );
}

async function statfsFree(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}

async function nearestExisting(dir: string): Promise<string> {
  for (let at = dir; ; at = path.dirname(at)) {
    if (
      await lstat(at).then(
        () => true,
        () => false,
      )
    )
      return at;
    if (path.dirname(at) === at) return at;
  }
}
