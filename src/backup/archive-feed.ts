import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Parser } from 'tar';
import { ArchiveError, type ArchiveLimits } from './archive-types.ts';

/** tar's own default for `maxDecompressionRatio`. */
const DEFAULT_RATIO = 1000;
/**
 * Bytes a tar stream may hold per entry beyond its file's content: a 512-byte header, up to
 * 511 bytes of padding, and a pax header with its records (a long or non-ASCII name).
 */
const ENTRY_OVERHEAD = 8 * 1024;
/** Room for the end blocks, tar's record padding and a global pax header. */
const SLACK = 1024 * 1024;

/** The most decompressed bytes an archive within `limits` can need. */
export function maxTarBytes(limits: ArchiveLimits): number {
  return limits.maxTotalBytes + (limits.maxEntries + 1) * ENTRY_OVERHEAD + SLACK;
}

/**
 * Streams `file` (gzip or plain tar) into `parser` as plain tar bytes, and stops reading as
 * soon as the parser has seen the end-of-archive blocks. Why not hand tar the file: tar's
 * parser keeps every byte after the end in one buffer that it copies again on each chunk,
 * so 64 MiB of zeros after a small archive cost minutes and hundreds of MB; here they are
 * never read. The decompressed stream is bounded by `maxTarBytes(limits)` and by the ratio
 * of decompressed to compressed bytes, so reading costs time and memory in proportion to
 * what the limits allow. A refusal or read error is passed to `fail`; otherwise the parser
 * is ended when the input or the archive ends (its own events say when it is done). Returns
 * `cancel`, which stops reading without ending the parser or calling `fail`.
 */
export function feedTar(
  file: string,
  parser: Parser,
  limits: ArchiveLimits,
  fail: (error: unknown) => void,
): () => void {
  let cancel = () => {};
  let cancelled = false;
  startsWithGzip(file).then((gzip) => {
    if (!cancelled) cancel = feed(file, gzip, parser, limits, fail);
  }, fail);
  return () => {
    cancelled = true;
    cancel();
  };
}

function feed(
  file: string,
  gzip: boolean,
  parser: Parser,
  limits: ArchiveLimits,
  fail: (error: unknown) => void,
): () => void {
  const source = createReadStream(file);
  const tarBytes: Readable = gzip ? pipeline(source, createGunzip(), () => {}) : source;
  const maxBytes = maxTarBytes(limits);
  const maxRatio = limits.maxRatio ?? DEFAULT_RATIO;
  let compressed = 0;
  let plain = 0;
  let atEnd = false;
  let stopped = false;
  const stop = (how: 'end' | 'cancel' | Error) => {
    if (stopped) return;
    stopped = true;
    source.destroy();
    tarBytes.destroy();
    if (how === 'end') parser.end();
    else if (how !== 'cancel') fail(how);
  };
  parser.on('eof', () => {
    atEnd = true;
  });
  source.on('data', (chunk) => {
    compressed += chunk.length;
  });
  tarBytes.on('data', (chunk: Buffer) => {
    if (atEnd) return stop('end'); // what follows the end blocks is not part of the archive
    if (plain === 0 && chunk[0] === 0x1f && chunk[1] === 0x8b)
      return stop(new ArchiveError('it holds a compressed file inside the compressed one'));
    plain += chunk.length;
    if (plain > maxBytes)
      return stop(new ArchiveError(`it decompresses to more than ${maxBytes} bytes`));
    if (gzip && plain / compressed > maxRatio)
      return stop(
        new ArchiveError(`it decompresses to more than ${maxRatio} times its size (a zip bomb?)`),
      );
    if (!parser.write(chunk)) {
      tarBytes.pause();
      parser.once('drain', () => tarBytes.resume());
    }
  });
  tarBytes.on('end', () => stop('end'));
  tarBytes.on('error', (error) => stop(error));
  source.on('error', (error) => stop(error));
  return () => stop('cancel');
}

async function startsWithGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}
