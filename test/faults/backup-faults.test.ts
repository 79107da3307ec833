/**
 * Backups under hostile input: documents whose names hold every kind of character that
 * breaks a file system or an archive, files a pack wrote under odd names, and archives
 * that are damaged, oversized or forged. Every backup satchel writes restores; every
 * archive it refuses is refused in one sentence, with nothing written.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupCommand } from '../../src/cli/backup.ts';
import { restoreCommand } from '../../src/cli/restore.ts';
import { cliArgs } from '../support/built.ts';
import { recordingIo } from '../support/cli-io.ts';
import {
  ALLOWED_USER,
  fixturePacks,
  type Harness,
  settled,
  startHarness,
} from '../support/harness.ts';
import { paxEntry, tarEntry, tarGz } from '../support/tar-entries.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-backup-faults-');
const harnesses: Harness[] = [];
// Registered after the temporary directories' hook, so it runs before it: the harnesses close
// before their homes go.
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

/** Names a user can give a document, each hostile to some file system, archive or reader. */
const HOSTILE_NAMES = [
  'line\u2028and\u2029paragraph.txt',
  'invoice\u202Efdp.exe',
  '\u2066isolated\u2069 and \u200fmarked.md',
  'tab\tnew\nline\rreturn.csv',
  'c1\u0085\u009bcontrols.txt',
  'zero\u200bwidth\ufeffbom.txt',
  `${'語'.repeat(130)}.pdf`,
  `${'🌿'.repeat(100)}.txt`,
  '../../etc/passwd',
  '\u202E',
];

/** Every file under `dir`, relative, with its bytes. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const full = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, full)] = readFileSync(full).toString('base64');
    }
  return out;
}

async function restore(archive: string, home: string) {
  const io = recordingIo({}, path.dirname(archive));
  const code = await restoreCommand.run([archive, '--home', home], io);
  return { code, out: io.out(), err: io.err() };
}

type Forged = { path: string; data: Buffer; size?: number; sha256?: string };

/** A backup-shaped archive: a manifest listing `files` (sizes and hashes may lie), then them. */
function forged(files: Forged[], ...extra: Buffer[]): Buffer {
  return tarGz(
    manifestOf(files),
    ...files.map((f) => tarEntry(f.path, { data: f.data })),
    ...extra,
  );
}

/** The manifest entry satchel would write for `files`, with the sizes and hashes given. */
function manifestOf(files: Forged[]): Buffer {
  const manifest = {
    format: 'satchel-backup',
    version: 1,
    created_at: '2025-06-01T00:00:00.000Z',
    files: files.map((f) => ({
      path: f.path,
      size: f.size ?? f.data.length,
      sha256: f.sha256 ?? createHash('sha256').update(f.data).digest('hex'),
    })),
  };
  return tarEntry('satchel-backup.json', { data: JSON.stringify(manifest) });
}

/** A refusal is one line naming the problem, with no stack trace, and writes nothing. */
function expectCleanRefusal(result: { code: number; err: string }, dir: string, files: string[]) {
  expect(result.code).toBe(1);
  expect(result.err.trim().split('\n')).toHaveLength(1);
  expect(result.err).not.toMatch(/\n\s+at /);
  expect(readdirSync(dir).sort()).toEqual(files.sort());
}

describe('backups of hostile names', () => {
  it('a document of any name is saved under a safe name, and the backup restores it byte for byte', async () => {
    const h = await startHarness({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    harnesses.push(h);
    for (const [i, name] of HOSTILE_NAMES.entries()) {
      h.tg.addFile(`d${i}`, Buffer.from(`document ${i}\n`));
      h.tg.document({ userId: ALLOWED_USER, fileId: `d${i}`, fileName: name });
      await settled(h, i + 1);
    }
    const files = path.join(h.home, 'packs', 'alpha', 'files');
    const saved = readdirSync(files);
    expect(saved).toHaveLength(HOSTILE_NAMES.length);
    for (const name of saved) {
      expect(name).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    }
    expect(saved).toContain('invoicefdp.exe');
    expect(saved).toContain(`${'語'.repeat(83)}.pdf`);
    // A pack's own tools may write names the document path never would: they restore too.
    writeFileSync(path.join(files, 'made\nby a\u2028tool\u202E.txt'), 'tool output');
    mkdirSync(path.join(files, 'ü\u2029dir'));
    writeFileSync(path.join(files, 'ü\u2029dir', `${'b'.repeat(251)}.txt`), 'long');
    const before = tree(h.home);
    await h.stop();

    const dir = tempDir();
    const archive = path.join(dir, 'backup.tar.gz');
    const io = recordingIo({ SATCHEL_HOME: h.home }, dir);
    expect(await backupCommand.run([archive], io)).toBe(0);
    const home = path.join(dir, 'restored');
    const result = await restore(archive, home);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const after = tree(home);
    const kept = (t: Record<string, string>) =>
      Object.fromEntries(Object.entries(t).filter(([name]) => name.includes(`files${path.sep}`)));
    expect(Object.keys(kept(after)).length).toBe(HOSTILE_NAMES.length + 2);
    expect(kept(after)).toEqual(kept(before));
  });

  it('a name a restore would refuse is refused by the backup, which says which file to rename', async () => {
    const h = await startHarness({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    harnesses.push(h);
    writeFileSync(path.join(h.home, 'packs', 'alpha', 'files', '..\\up.txt'), 'x');
    const dir = tempDir();
    const io = recordingIo({ SATCHEL_HOME: h.home }, dir);
    expect(await backupCommand.run([path.join(dir, 'b.tar.gz')], io)).toBe(1);
    expect(io.err()).toBe(
      'satchel backup: "packs/alpha/files/..\\\\up.txt" cannot be backed up: rename it, then retry\n',
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('restore refuses a bad archive in one sentence and writes nothing', () => {
  it('a backup holding a database that is not one', async () => {
    const dir = tempDir();
    const archive = path.join(dir, 'corrupt.tar.gz');
    writeFileSync(archive, forged([{ path: 'satchel.db', data: randomBytes(8192) }]));
    const result = await restore(archive, path.join(dir, 'home'));
    expectCleanRefusal(result, dir, ['corrupt.tar.gz']);
    expect(result.err).toMatch(
      /^satchel restore: satchel\.db in this backup is not a usable database \(.+\); nothing was restored — use an older backup\n$/,
    );
  });

  it('an entry whose header claims 3 GiB, refused on its header before any byte is written', async () => {
    const dir = tempDir();
    const archive = path.join(dir, 'bomb.tar.gz');
    // The manifest says 10 bytes; the entry's header says 3 GiB and 1 MiB of it follows.
    const bomb = tarEntry('satchel.db', { data: Buffer.alloc(1024 * 1024), size: 3 * 1024 ** 3 });
    writeFileSync(
      archive,
      tarGz(manifestOf([{ path: 'satchel.db', data: Buffer.alloc(10) }]), bomb),
    );
    const result = await restore(archive, path.join(dir, 'home'));
    expectCleanRefusal(result, dir, ['bomb.tar.gz']);
    expect(result.err).toContain('"satchel.db": 3221225472 bytes, but its manifest says 10');
  });

  it('entries that point outside SATCHEL_HOME, links, and files the manifest does not list', async () => {
    const db = { path: 'satchel.db', data: Buffer.from('x') };
    const cases: [Buffer, RegExp][] = [
      [forged([db], tarEntry('packs/../../escaped.txt', { data: 'x' })), /"\.\." segment/],
      [forged([db], tarEntry('/etc/cron.d/evil', { data: 'x' })), /an absolute path/],
      [
        forged([db], tarEntry('packs/a/files/l', { type: '2', link: '/etc/passwd' })),
        /a SymbolicLink entry/,
      ],
      [forged([db], paxEntry('packs/a/files/extra', 'x')), /its manifest does not list it/],
    ];
    for (const [bytes, message] of cases) {
      const dir = tempDir();
      writeFileSync(path.join(dir, 'evil.tar.gz'), bytes);
      const result = await restore(path.join(dir, 'evil.tar.gz'), path.join(dir, 'home'));
      expectCleanRefusal(result, dir, ['evil.tar.gz']);
      expect(result.err).toMatch(message);
    }
  });

  it('under a 2 MB file-size limit, a damaged 8 MB archive is refused without writing a byte', () => {
    const dir = tempDir();
    const archive = path.join(dir, 'damaged.tar.gz');
    const data = randomBytes(8 * 1024 * 1024);
    writeFileSync(archive, forged([{ path: 'satchel.db', data, sha256: '0'.repeat(64) }]));
    // The restore runs as its own process, which the kernel stops from writing over 2 MB.
    const run = spawnSync(
      'bash',
      [
        '-c',
        'ulimit -f 2048 && exec "$@"',
        'restore',
        process.execPath,
        ...cliArgs(),
        'restore',
        archive,
      ],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, SATCHEL_HOME: path.join(dir, 'home') },
        encoding: 'utf8',
      },
    );
    expect(run.signal).toBeNull();
    expect(run.stderr).toBe(
      'satchel restore: the archive is damaged: satchel.db does not match its checksum\n',
    );
    expect(run.status).toBe(1);
    expect(readdirSync(dir)).toEqual(['damaged.tar.gz']);
  });
});
