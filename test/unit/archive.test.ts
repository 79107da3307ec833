import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type ExtractOptions,
  extractSafely,
  readFirstEntry,
  writeArchive,
} from '../../src/backup/archive.ts';
import { paxEntry, tarEntry, tarGz } from '../support/tar-entries.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-archive-');

const LIMITS: ExtractOptions = {
  maxEntries: 100,
  maxEntryBytes: 1024 * 1024,
  maxTotalBytes: 4 * 1024 * 1024,
};

/** The entries as a .tar.gz in a fresh directory; its path. */
function archiveOf(...entries: Buffer[]): string {
  const file = path.join(tempDir(), 'a.tar.gz');
  writeFileSync(file, tarGz(...entries));
  return file;
}

/** Extracting `archive` is refused with `message`, and nothing was written. */
async function refused(archive: string, message: RegExp, limits = LIMITS) {
  const parent = tempDir();
  const into = path.join(parent, 'out');
  await expect(extractSafely(archive, into, limits)).rejects.toThrow(message);
  expect(readdirSync(parent)).toEqual([]);
}

describe('writeArchive and extractSafely', () => {
  const names = [
    'a.txt',
    'empty',
    'block',
    `${'deep/'.repeat(30)}file.txt`,
    'fotos/Ärger über 🌿.md',
    'line\u2028and\u2029para\nnew.txt',
    `${'語'.repeat(83)}.md`, // 252 bytes of UTF-8
    `${'n'.repeat(251)}.txt`,
  ];
  const contents = ['hello', '', 'x'.repeat(512), 'deep', 'unicode', 'sep', 'cjk', 'long'];

  it('round-trips long, non-ASCII and line-separator names, empty and block-sized files', async () => {
    const root = tempDir();
    for (const [i, name] of names.entries()) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), contents[i]!);
    }
    const archive = path.join(tempDir(), 'out.tar.gz');
    await writeArchive(archive, root, names);
    expect(statSync(archive).mode & 0o777).toBe(0o600);
    const into = path.join(tempDir(), 'restored');
    const files = await extractSafely(archive, into, LIMITS);
    expect(files.map((f) => f.path)).toEqual(names);
    for (const [i, name] of names.entries())
      expect(readFileSync(path.join(into, name), 'utf8')).toBe(contents[i]);
    expect(statSync(path.join(into, 'a.txt')).mode & 0o777).toBe(0o600);
    expect(await readFirstEntry(archive, 100)).toEqual({
      path: 'a.txt',
      content: Buffer.from('hello'),
    });
  });

  it('writes what GNU tar extracts byte for byte', async () => {
    const root = tempDir();
    const name = `über/${'x'.repeat(150)}/file.txt`;
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), 'content\n');
    const archive = path.join(tempDir(), 'a.tar.gz');
    await writeArchive(archive, root, [name]);
    const into = tempDir();
    const run = spawnSync('tar', ['-xzf', archive, '-C', into], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(readFileSync(path.join(into, name), 'utf8')).toBe('content\n');
  });

  it('reads what GNU tar writes, pax names included', async () => {
    const archive = archiveOf(
      tarEntry('dir/', { type: '5' }),
      tarEntry('dir/a', { data: 'A' }),
      paxEntry('ü/b\u2028c', 'B'),
    );
    const into = path.join(tempDir(), 'out');
    const files = await extractSafely(archive, into, LIMITS);
    expect(files.map((f) => [f.path, f.size])).toEqual([
      ['dir/a', 1],
      ['ü/b\u2028c', 1],
    ]);
    expect(readFileSync(path.join(into, 'ü', 'b\u2028c'), 'utf8')).toBe('B');
  });

  it('refuses a name it could not read back, before writing anything', async () => {
    const root = tempDir();
    const archive = path.join(root, 'a.tar.gz');
    await expect(writeArchive(archive, root, ['../etc/passwd'])).rejects.toThrow(
      /cannot be archived/,
    );
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('extractSafely refuses hostile archives and writes nothing', () => {
  it('an absolute path', async () => {
    await refused(archiveOf(tarEntry('/tmp/satchel-escaped', { data: 'x' })), /an absolute path/);
  });

  it('a path with ".." anywhere', async () => {
    await refused(archiveOf(tarEntry('files/../../escaped', { data: 'x' })), /"\.\." segment/);
    await refused(archiveOf(tarEntry('..\\escaped', { data: 'x' })), /"\.\." segment/);
  });

  it('links, devices and FIFOs, even after good files', async () => {
    const good = tarEntry('good.txt', { data: 'fine' });
    const cases: [string, string][] = [
      ['2', 'SymbolicLink'],
      ['1', 'Link'],
      ['3', 'CharacterDevice'],
      ['4', 'BlockDevice'],
      ['6', 'FIFO'],
    ];
    for (const [type, name] of cases)
      await refused(
        archiveOf(good, tarEntry('evil', { type, link: type < '3' ? '/etc/passwd' : '' })),
        new RegExp(`"evil": a ${name} entry; only regular files and directories`),
      );
  });

  it('a file over the size limit, on its header: a claimed 3 GiB is never read', async () => {
    // 1 KiB of data behind a header that claims 3 GiB: refused for its size, not its end.
    const bomb = tarEntry('big.db', { data: Buffer.alloc(1024), size: 3 * 1024 ** 3 });
    await refused(
      archiveOf(tarEntry('a', { data: 'a' }), bomb),
      /"big\.db": 3221225472 bytes, over the limit of 1048576/,
    );
  });

  it('files that together pass the total, or too many entries', async () => {
    const three = ['a', 'b', 'c'].map((n) => tarEntry(n, { data: Buffer.alloc(400) }));
    await refused(archiveOf(...three), /"c": the files reach 1200 bytes, over the limit of 1000/, {
      ...LIMITS,
      maxTotalBytes: 1000,
    });
    await refused(archiveOf(...three), /more than 2 entries/, { ...LIMITS, maxEntries: 2 });
  });

  it('a name given twice, or a file where a directory should be', async () => {
    await refused(
      archiveOf(tarEntry('a', { data: '1' }), tarEntry('a', { data: '2' })),
      /"a": it appears twice/,
    );
    await refused(
      archiveOf(tarEntry('a', { data: '1' }), tarEntry('a/b', { data: '2' })),
      /a file stands where/,
    );
  });

  it('a damaged or truncated archive', async () => {
    const dir = tempDir();
    const junk = path.join(dir, 'junk.tar.gz');
    writeFileSync(junk, Buffer.from('not an archive at all, '.repeat(40)));
    await refused(junk, /checksum|invalid|bad|unrecognized/i);
    const whole = gzipSync(
      Buffer.concat([tarEntry('a', { data: Buffer.alloc(100_000, 7) }), Buffer.alloc(1024)]),
    );
    const cut = path.join(dir, 'cut.tar.gz');
    writeFileSync(cut, whole.subarray(0, whole.length - 40));
    await refused(cut, /unexpected end|truncated/i);
  });

  it('more bytes than its limits account for (headers no file follows), or a gzip in the gzip', async () => {
    // Eight pax headers of 900 KiB of records nobody reads (random text, so the ratio is
    // low): 7 MiB of tar for one small file, past what 100 entries of 4 MiB can need.
    const comment = (bytes: number) => {
      const body = ` comment=${randomBytes(bytes).toString('base64').slice(0, bytes)}\n`;
      const length = Buffer.byteLength(body) + String(Buffer.byteLength(body) + 7).length;
      return tarEntry('PaxHeader', { type: 'x', data: `${length}${body}` });
    };
    const padding = Array.from({ length: 8 }, () => comment(900 * 1024));
    await refused(
      archiveOf(...padding, tarEntry('a', { data: 'a' })),
      /it decompresses to more than \d+ bytes/,
    );
    const nested = path.join(tempDir(), 'nested.tar.gz');
    writeFileSync(nested, gzipSync(tarGz(tarEntry('a', { data: 'a' }))));
    await refused(nested, /a compressed file inside the compressed one/);
  });

  it('what the caller’s rule or check refuses', async () => {
    const archive = archiveOf(tarEntry('a', { data: 'a' }), tarEntry('b', { data: 'b' }));
    await refused(archive, /"b": not wanted/, {
      ...LIMITS,
      accept: (e) => (e.path === 'b' ? 'not wanted' : undefined),
    });
    const parent = tempDir();
    const verify = () => {
      throw new Error('checksum mismatch');
    };
    await expect(
      extractSafely(archive, path.join(parent, 'out'), { ...LIMITS, verify }),
    ).rejects.toThrow('checksum mismatch');
    expect(readdirSync(parent)).toEqual([]);
  });

  it('an archive that would not fit the free space', async () => {
    const archive = archiveOf(tarEntry('a', { data: Buffer.alloc(1000) }));
    await refused(archive, /extracting needs 1000 bytes, but only 16778215 are free/, {
      ...LIMITS,
      freeSpace: async () => 16 * 1024 * 1024 + 999, // one byte short, with the margin
    });
  });

  it('a target that is not empty', async () => {
    const into = tempDir();
    writeFileSync(path.join(into, 'kept'), 'mine');
    await expect(
      extractSafely(archiveOf(tarEntry('a', { data: 'a' })), into, LIMITS),
    ).rejects.toThrow(/must be a new or empty directory/);
    expect(readdirSync(into)).toEqual(['kept']);
    expect(existsSync(path.join(into, 'a'))).toBe(false);
  });
});
