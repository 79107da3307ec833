import { spawnSync } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreBackup } from '../../src/backup/restore.ts';
import { readTar } from '../../src/backup/tar-read.ts';
import { type TarEntry, tarChunks } from '../../src/backup/tar-write.ts';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-tar-'));
  temps.push(dir);
  return dir;
};

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

async function read(tar: Buffer) {
  const out: { name: string; type: string; content: string }[] = [];
  for await (const entry of readTar(Readable.from([tar.subarray(0, 700), tar.subarray(700)])))
    out.push({
      name: entry.name,
      type: entry.type,
      content: (await collect(entry.content)).toString(),
    });
  return out;
}

describe('tar', () => {
  it('round-trips files and directories, long and non-ASCII names, empty and block-sized files', async () => {
    const dir = tempDir();
    const files: [string, string][] = [
      ['a.txt', 'hello'],
      ['empty', ''],
      ['block', 'x'.repeat(512)],
      [`${'deep/'.repeat(30)}file.txt`, 'deep'],
      ['fotos/Ärger über 🌿.md', 'unicode'],
      [`${'n'.repeat(120)}.txt`, 'long'],
    ];
    const entries: TarEntry[] = [{ name: 'fotos', type: 'directory' }];
    for (const [i, [name, content]] of files.entries()) {
      const source = path.join(dir, `f${i}`);
      writeFileSync(source, content);
      entries.push({ name, type: 'file', source, size: Buffer.byteLength(content) });
    }
    const tar = await collect(tarChunks(entries));
    expect(tar.length % 512).toBe(0);
    expect(await read(tar)).toEqual([
      { name: 'fotos', type: 'directory', content: '' },
      ...files.map(([name, content]) => ({ name, type: 'file', content })),
    ]);
  });

  it('writes what GNU tar extracts byte for byte', async () => {
    const dir = tempDir();
    const source = path.join(dir, 'src');
    writeFileSync(source, 'content\n');
    const archive = path.join(dir, 'a.tar.gz');
    const name = `über/${'x'.repeat(150)}/file.txt`;
    await pipeline(
      Readable.from(tarChunks([{ name, type: 'file', source, size: 8 }])),
      createGzip(),
      createWriteStream(archive),
    );
    const into = path.join(dir, 'out');
    mkdirSync(into);
    const run = spawnSync('tar', ['-xzf', archive, '-C', into], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(readdirSync(path.join(into, 'über', 'x'.repeat(150)))).toEqual(['file.txt']);
  });

  it('refuses links: only files and directories are read', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'target'), 'secret');
    symlinkSync('/etc/passwd', path.join(dir, 'link'));
    const archive = spawnSync('tar', ['-cf', '-', '-C', dir, 'link']).stdout as Buffer;
    await expect(read(archive)).rejects.toThrow(/link is not a regular file or a directory/);
  });

  it('restore refuses an entry that points outside SATCHEL_HOME, and writes nothing', async () => {
    const dir = tempDir();
    const source = path.join(dir, 'evil');
    writeFileSync(source, 'pwned');
    const archive = path.join(dir, 'evil.tar.gz');
    await pipeline(
      Readable.from(
        tarChunks([{ name: 'packs/../../escaped.txt', type: 'file', source, size: 5 }]),
      ),
      createGzip(),
      createWriteStream(archive),
    );
    const home = path.join(dir, 'home');
    await expect(restoreBackup({ archive, home })).rejects.toThrow(/unexpected entry/);
    expect(readdirSync(dir).sort()).toEqual(['evil', 'evil.tar.gz']);
  });
});
