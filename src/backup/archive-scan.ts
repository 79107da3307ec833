import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Parser, type ReadEntry } from 'tar';
import { feedTar } from './archive-feed.ts';
import { ArchiveError, type ArchiveHeader, type ArchiveLimits } from './archive-types.ts';

export { ArchiveError, type ArchiveHeader, type ArchiveLimits } from './archive-types.ts';

/** A file the archive holds, with its size and SHA-256. */
export interface ArchiveFile {
  path: string;
  size: number;
  sha256: string;
}

/** The SHA-256 of a file's content, in hex. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Why `name` cannot stand for a file inside the extraction directory, or undefined when it
 * can: it must be relative, with `/` separators, no empty, `.` or `..` segment (nor one that
 * a Windows reader would see through `\`), and no NUL.
 */
export function unsafeArchivePath(name: string): string | undefined {
  if (name === '') return 'an empty name';
  if (name.includes('\0')) return 'a NUL byte in the name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  const segments = name.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    return 'an empty, "." or ".." segment';
  if (name.split(/[\\/]/).some((s) => s === '..')) return 'a ".." segment';
  return undefined;
}

/**
 * The files whose content a caller reads while an archive is inspected, one at a time (a
 * file's header has passed the limits, so its size is bounded by them): `wants` picks them,
 * `read` gets each whole and may throw to refuse the archive.
 */
export interface ContentReader {
  wants(header: ArchiveHeader): boolean;
  read(header: ArchiveHeader, content: Buffer): void;
}

/**
 * Reads `file` (tar, gzip or not) without writing anything: checks each entry's header
 * against `limits` (type, name, size, count, running total, duplicates, the caller's rule)
 * before its content is read, hashes each file, hands the files `reader` wants to it, and
 * returns the files in archive order. The first refusal, or a damaged archive, rejects with
 * an ArchiveError.
 */
export async function inspectArchive(
  file: string,
  limits: ArchiveLimits,
  reader?: ContentReader,
): Promise<ArchiveFile[]> {
  const files: ArchiveFile[] = [];
  const check = createHeaderCheck(limits);
  await parseArchive(file, limits, (entry, _stop, fail) => {
    const header = check(entry);
    if (header.type === 'directory') {
      entry.resume(); // the parser waits for each entry to be read through
      return;
    }
    const hash = createHash('sha256');
    const kept: Buffer[] | undefined = reader?.wants(header) ? [] : undefined;
    let size = 0;
    entry.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      kept?.push(chunk);
    });
    entry.on('end', () => {
      files.push({ path: header.path, size, sha256: hash.digest('hex') });
      if (!kept) return;
      try {
        reader?.read(header, Buffer.concat(kept));
      } catch (error) {
        fail(error);
      }
    });
  });
  return files;
}

/** The content of the archive's first entry, which must be a file of at most `maxBytes`. */
export async function readFirstEntry(
  file: string,
  maxBytes: number,
): Promise<{ path: string; content: Buffer } | undefined> {
  let first: { path: string; content: Buffer } | undefined;
  // No ratio limit: the entry is bounded by maxBytes, and reading stops after it.
  const limits = {
    maxEntries: 1,
    maxEntryBytes: maxBytes,
    maxTotalBytes: maxBytes,
    maxRatio: Number.POSITIVE_INFINITY,
  };
  const check = createHeaderCheck(limits);
  await parseArchive(file, limits, (entry, stop) => {
    const { path, type } = check(entry);
    if (type !== 'file') throw new ArchiveError(`"${path}" comes first, and it is not a file`);
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => {
      first = { path, content: Buffer.concat(chunks) };
      stop();
    });
  });
  return first;
}

/** The checks on each header, in archive order; returns the header or throws why not. */
export function createHeaderCheck(limits: ArchiveLimits): (entry: ReadEntry) => ArchiveHeader {
  let index = 0;
  let total = 0;
  const layout = createLayout();
  return (entry) => {
    const name = entry.path.replace(/\/+$/, '');
    const refuse = (why: string) => new ArchiveError(`"${printable(name)}": ${why}`);
    const type: ArchiveHeader['type'] | undefined = FILE_TYPES.has(entry.type)
      ? 'file'
      : entry.type === 'Directory'
        ? 'directory'
        : undefined;
    if (!type)
      throw refuse(`a ${entry.type} entry; only regular files and directories are accepted`);
    const unsafe = unsafeArchivePath(name);
    if (unsafe) throw refuse(`${unsafe}; every entry must stay inside the archive's directory`);
    const header: ArchiveHeader = {
      path: name,
      type,
      size: type === 'file' ? entry.size : 0,
      index,
    };
    const rule = limits.accept?.(header);
    if (rule) throw refuse(rule);
    if (++index > limits.maxEntries)
      throw new ArchiveError(`more than ${limits.maxEntries} entries`);
    if (header.size > limits.maxEntryBytes)
      throw refuse(`${header.size} bytes, over the limit of ${limits.maxEntryBytes} for one file`);
    total += header.size;
    if (total > limits.maxTotalBytes)
      throw refuse(`the files reach ${total} bytes, over the limit of ${limits.maxTotalBytes}`);
    const clash = layout.add(name, type);
    if (clash) throw refuse(clash);
    return header;
  };
}

/** The names seen so far: each once, and never both a file and a directory. */
function createLayout() {
  const files = new Set<string>();
  const dirs = new Set<string>();
  return {
    /** Why `name` cannot be added, or undefined once it is. */
    add(name: string, type: 'file' | 'directory'): string | undefined {
      if (files.has(name) || (type === 'file' && dirs.has(name)))
        return 'it appears twice (or as both a file and a directory)';
      const segments = name.split('/');
      const parents = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
      if (parents.some((p) => files.has(p))) return 'a file stands where its directory should be';
      for (const parent of parents) dirs.add(parent);
      (type === 'file' ? files : dirs).add(name);
      return undefined;
    },
  };
}

/**
 * Streams `file` through tar's parser (strict: a damaged header, a truncated archive or a
 * bad gzip stream is an error), calling `onEntry` for each entry in order. `onEntry` may
 * throw to refuse the archive, or call `stop` to end the reading early. The bytes come
 * through `feedTar`, which bounds them by `limits` and stops at the archive's end. `fail`
 * refuses the archive from an entry's own events, after `onEntry` has returned.
 */
function parseArchive(
  file: string,
  limits: ArchiveLimits,
  onEntry: (entry: ReadEntry, stop: () => void, fail: (error: unknown) => void) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let cancel = () => {};
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      cancel();
      if (error === undefined) resolve();
      else reject(error instanceof ArchiveError ? error : new ArchiveError(describe(error)));
    };
    // brotli and zstd off: only gzip (undone by feedTar) or plain tar reaches the parser.
    const parser = new Parser({
      strict: true,
      brotli: false,
      zstd: false,
      onReadEntry(entry) {
        if (settled) {
          entry.resume();
          return;
        }
        try {
          onEntry(
            entry,
            () => finish(),
            (error) => finish(error),
          );
        } catch (error) {
          finish(error);
        }
      },
    });
    parser.on('error', finish);
    parser.on('end', () => finish());
    cancel = feedTar(file, parser, limits, finish);
  });
}

/** An error's message without tar's code prefix. */
export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^TAR_[A-Z_]+: /, '');
}

/** A name as it may be shown: control and format characters escaped. */
export function printable(name: string): string {
  return name.replace(
    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu,
    (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
}
