import { createReadStream } from 'node:fs';

/**
 * A minimal POSIX tar (ustar + pax) writer: regular files and directories, nothing else.
 * A name that does not fit ustar's fields (long, or not ASCII) gets a pax `path` record, as
 * GNU tar and bsdtar write and read it. Enough for satchel's backups; `tar -xzf` reads them.
 */
export interface TarEntry {
  /** The path inside the archive, with `/` separators and no leading `/`. */
  name: string;
  type: 'file' | 'directory';
  /** File entries: the file to copy, and its size (read before; the file must not grow). */
  source?: string;
  size?: number;
  mode?: number;
  mtimeMs?: number;
}

const BLOCK = 512;

/** The archive as a stream of chunks: each entry's header, its content, padding, the end. */
export async function* tarChunks(entries: AsyncIterable<TarEntry> | Iterable<TarEntry>) {
  for await (const entry of entries) {
    const size = entry.type === 'file' ? (entry.size ?? 0) : 0;
    const name = entry.type === 'directory' ? `${entry.name.replace(/\/+$/, '')}/` : entry.name;
    yield* headers(name, entry, size);
    if (entry.type === 'file' && entry.source && size > 0) {
      let written = 0;
      // Only the size announced in the header is read: a file that grew meanwhile is cut.
      for await (const chunk of createReadStream(entry.source, { end: size - 1 })) {
        written += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      if (written < size) throw new Error(`${entry.source} shrank while it was archived`);
      yield Buffer.alloc(padding(size));
    }
  }
  yield Buffer.alloc(BLOCK * 2);
}

function* headers(name: string, entry: TarEntry, size: number): Generator<Buffer> {
  const split = ustarName(name);
  if (!split) {
    const record = paxRecord('path', name);
    yield header({ name: 'PaxHeader', size: record.length, typeflag: 'x', mode: 0o644, mtime: 0 });
    yield record;
    yield Buffer.alloc(padding(record.length));
  }
  yield header({
    name: split?.name ?? asciiTail(name),
    prefix: split?.prefix ?? '',
    size,
    typeflag: entry.type === 'directory' ? '5' : '0',
    mode: entry.mode ?? (entry.type === 'directory' ? 0o755 : 0o644),
    mtime: Math.floor((entry.mtimeMs ?? Date.now()) / 1000),
  });
}

/** ustar's name (100 bytes) and prefix (155 bytes, split at a `/`), or undefined if it cannot hold it. */
function ustarName(name: string): { name: string; prefix: string } | undefined {
  if (!/^[\x20-\x7e]*$/.test(name)) return undefined;
  if (name.length <= 100) return { name, prefix: '' };
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (prefix.length <= 155 && rest.length <= 100 && rest.length > 0)
      return { name: rest, prefix };
  }
  return undefined;
}

/** A readable stand-in for the ustar name when pax carries the real one. */
function asciiTail(name: string): string {
  return name.replace(/[^\x20-\x7e]/g, '_').slice(-100);
}

/** One pax record: `<length> <key>=<value>\n`, where the length counts itself. */
export function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = Buffer.byteLength(body);
  let length = bodyBytes + String(bodyBytes).length;
  if (String(length).length !== String(bodyBytes).length)
    length = bodyBytes + String(length).length;
  return Buffer.from(`${length}${body}`, 'utf8');
}

function header(fields: {
  name: string;
  prefix?: string;
  size: number;
  typeflag: string;
  mode: number;
  mtime: number;
}): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(fields.name, 0, 100, 'utf8');
  octal(block, fields.mode, 100, 8);
  octal(block, 0, 108, 8); // uid
  octal(block, 0, 116, 8); // gid
  octal(block, fields.size, 124, 12);
  octal(block, fields.mtime, 136, 12);
  block.fill(' ', 148, 156); // the checksum counts as spaces while it is computed
  block.write(fields.typeflag, 156, 1, 'ascii');
  block.write('ustar\u000000', 257, 8, 'ascii');
  block.write('satchel', 265, 32, 'ascii'); // uname
  block.write('satchel', 297, 32, 'ascii'); // gname
  block.write(fields.prefix ?? '', 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'ascii');
  return block;
}

function octal(block: Buffer, value: number, offset: number, length: number): void {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`tar: ${value} does not fit ${length} bytes`);
  block.write(`${digits.padStart(length - 1, '0')}\u0000`, offset, length, 'ascii');
}

export function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}
