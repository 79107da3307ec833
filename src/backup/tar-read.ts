import { padding } from './tar-write.ts';

/** An entry of an archive being read; a file's content must be consumed before the next. */
export interface TarReadEntry {
  name: string;
  type: 'file' | 'directory';
  size: number;
  mode: number;
  mtimeMs: number;
  /** The content, in chunks (files only; empty for directories). */
  content: AsyncIterable<Buffer>;
}

const BLOCK = 512;

/**
 * Reads a tar stream (ustar, with pax `path` records, as tar-write.ts and common tools write
 * it) entry by entry. Only regular files and directories are accepted: a link, a device or a
 * damaged header rejects with an error naming it, so nothing unexpected reaches the disk.
 * Names are returned as written; the caller checks where they point.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarReadEntry> {
  const input = new ByteReader(source);
  let paxPath: string | undefined;
  for (;;) {
    const block = await input.read(BLOCK);
    if (block.length === 0 || block.every((b) => b === 0)) return;
    if (block.length < BLOCK) throw new Error('tar: the archive ends inside a header');
    checkSum(block);
    const size = parseOctal(block, 124, 12);
    const typeflag = String.fromCharCode(block[156] ?? 0);
    if (typeflag === 'x' || typeflag === 'g') {
      const records = await input.read(size);
      await input.read(padding(size));
      if (typeflag === 'x') paxPath = parsePax(records).path ?? paxPath;
      continue;
    }
    const prefix = text(block, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    paxPath = undefined;
    const base = {
      name: name.replace(/\/+$/, ''),
      size,
      mode: parseOctal(block, 100, 8),
      mtimeMs: parseOctal(block, 136, 12) * 1000,
    };
    if (typeflag === '5') {
      yield { ...base, type: 'directory', size: 0, content: empty() };
      continue;
    }
    if (typeflag !== '0' && typeflag !== '\u0000')
      throw new Error(`tar: ${name} is not a regular file or a directory (type ${typeflag})`);
    let consumed = false;
    const content = async function* () {
      consumed = true;
      for (let left = size; left > 0; ) {
        const chunk = await input.readSome(left);
        if (chunk.length === 0) throw new Error(`tar: the archive ends inside ${name}`);
        left -= chunk.length;
        yield chunk;
      }
    };
    yield { ...base, type: 'file', content: content() };
    if (!consumed) for await (const _ of content());
    await input.read(padding(size));
  }
}

async function* empty(): AsyncGenerator<Buffer> {}

function text(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

function parseOctal(block: Buffer, offset: number, length: number): number {
  const digits = text(block, offset, length).trim();
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new Error('tar: a damaged header (not an archive?)');
  return Number.parseInt(digits, 8);
}

function checkSum(block: Buffer): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (block[i] ?? 0);
  if (parseOctal(block, 148, 8) !== sum) throw new Error('tar: a damaged header (checksum)');
}

/** pax records: `<length> <key>=<value>\n`, one after another. */
function parsePax(records: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < records.length) {
    const space = records.indexOf(0x20, at);
    const length = Number(records.subarray(at, space).toString('ascii'));
    if (space === -1 || !Number.isInteger(length) || length <= 0)
      throw new Error('tar: a damaged pax header');
    const record = records.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    out[record.slice(0, eq)] = record.slice(eq + 1);
    at += length;
  }
  return out;
}

/** Exact-size reads over a stream of chunks. */
class ByteReader {
  private readonly iterator: AsyncIterator<Buffer>;
  private buffered: Buffer = Buffer.alloc(0);
  private done = false;

  constructor(source: AsyncIterable<Buffer>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** Exactly `n` bytes, or fewer only at the end of the stream. */
  async read(n: number): Promise<Buffer> {
    while (this.buffered.length < n && (await this.fill()));
    return this.take(Math.min(n, this.buffered.length));
  }

  /** Between 1 and `max` bytes (0 only at the end of the stream). */
  async readSome(max: number): Promise<Buffer> {
    if (this.buffered.length === 0) await this.fill();
    return this.take(Math.min(max, this.buffered.length));
  }

  private take(n: number): Buffer {
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.buffered =
      this.buffered.length === 0 ? next.value : Buffer.concat([this.buffered, next.value]);
    return true;
  }
}
