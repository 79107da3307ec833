import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';

/**
 * Tar entries made by hand, so that hostile archives do not depend on the code under test.
 * `tarEntry`: a ustar header (type, name, link and size as given) and `data`, padded to
 * 512 bytes; `size` may claim more than `data` holds.
 */
export function tarEntry(
  name: string,
  o: { type?: string; data?: Buffer | string; size?: number; link?: string } = {},
): Buffer {
  const data = Buffer.from(o.data ?? '');
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${(o.size ?? data.length).toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.fill(' ', 148, 156);
  header.write(o.type ?? '0', 156);
  header.write(o.link ?? '', 157, 100, 'utf8');
  header.write('ustar\u000000', 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return Buffer.concat([header, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

/** A pax `path` record and the file entry it names (for names a ustar header cannot hold). */
export function paxEntry(name: string, data: string | Buffer): Buffer {
  const body = ` path=${name}\n`;
  // The length counts its own digits.
  let length = Buffer.byteLength(body);
  while (length !== Buffer.byteLength(body) + String(length).length)
    length = Buffer.byteLength(body) + String(length).length;
  return Buffer.concat([
    tarEntry('PaxHeader', { type: 'x', data: `${length}${body}` }),
    tarEntry('x', { data }),
  ]);
}

/** The entries as a gzip-compressed tar, with its end-of-archive blocks. */
export function tarGz(...entries: Buffer[]): Buffer {
  return gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));
}

/**
 * `tar` (a whole archive, end blocks included) followed by `zeros` zero bytes, as one gzip
 * stream, made in 1 MiB steps: 64 MiB of zeros cost 64 KiB on disk and never sit in memory.
 */
export async function gzipWithZerosAfter(tar: Buffer, zeros: number): Promise<Buffer> {
  const step = Buffer.alloc(1024 * 1024);
  async function* parts() {
    yield tar;
    for (let left = zeros; left > 0; left -= step.length)
      yield left >= step.length ? step : step.subarray(0, left);
  }
  const chunks: Buffer[] = [];
  await pipeline(Readable.from(parts()), createGzip(), async (gz: AsyncIterable<Buffer>) => {
    for await (const chunk of gz) chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/** Samples `process.memoryUsage().arrayBuffers` until `stop` is called; the peak growth seen. */
export function bufferPeak(): { stop(): number } {
  const base = process.memoryUsage().arrayBuffers;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().arrayBuffers) - base;
    },
  };
}
