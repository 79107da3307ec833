import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { backupCommand } from '../../src/cli/backup.ts';
import type { CliCommand } from '../../src/cli/command.ts';
import { modelsCommand } from '../../src/cli/models.ts';
import { createPackAddCommand } from '../../src/cli/pack-add.ts';
import { packListCommand } from '../../src/cli/pack-list.ts';
import { restoreCommand } from '../../src/cli/restore.ts';
import type { CliIo } from '../../src/core/cli-io.ts';
import { Database } from '../../src/store/sqlite.ts';
import { userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { packSource } from '../support/pack-sources.ts';
import { bufferPeak, gzipWithZerosAfter } from '../support/tar-entries.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-backup-test-');
// Registered after the temporary directories' hook, so it runs before it: the harnesses close
// before the homes restored into those directories go.
const harness = harnessPerTest();

/** Runs a command in-process with `env` and `cwd`; its exit code and output. */
async function run(command: CliCommand, args: string[], env: Record<string, string>, cwd: string) {
  let out = '';
  let err = '';
  const stdout = new PassThrough().on('data', (c) => {
    out += c;
  });
  const stderr = new PassThrough().on('data', (c) => {
    err += c;
  });
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env, cwd };
  const code = await command.run(args, io);
  return { code, out, err };
}

/** Rows of a table in a database file, read-only. */
function rowsOf(file: string, sql: string): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe('satchel backup and restore', () => {
  it('a backup taken while the bot writes restores into a bot with the same sessions, ledger and pack data', async () => {
    const packs = fixturePacks(['alpha']);
    const h = await harness.start({ SATCHEL_PACKS: packs });
    const packDir = path.join(h.home, 'packs', 'alpha');
    h.tg.text({ userId: ALLOWED_USER, text: 'my basil needs water' });
    await settled(h, 1);
    writeFileSync(path.join(packDir, 'USER.md'), '# User\nGrows basil on the balcony.\n');
    writeFileSync(path.join(packDir, 'files', 'care guide (2).txt'), 'water every 2 days\n');
    mkdirSync(path.join(packDir, 'files', 'photos', 'ü'), { recursive: true });
    writeFileSync(
      path.join(packDir, 'files', 'photos', 'ü', `${'long-name-'.repeat(12)}.txt`),
      'x',
    );
    const packDb = new Database(path.join(packDir, 'pack.db'));
    packDb.prepare("INSERT INTO plants (name, watered_on) VALUES ('basil', '2025-06-01')").run();
    // An "Always allow" answer of the owner's (SPEC §17) is in the backup too.
    h.exec("INSERT INTO tool_grants (pack, tool, granted_at) VALUES ('alpha', 'memory', 1)");
    const before = {
      sessions: h.rows('SELECT * FROM sessions ORDER BY id'),
      usage: h.rows('SELECT * FROM usage_events ORDER BY id'),
    };

    // The bot is busy with more turns, and the pack's database takes writes, during the backup.
    h.model.setDefault((req) => ({ text: `noted: ${userTexts(req).at(-1)}`, delayMs: 40 }));
    for (const text of ['and the mint', 'and the sage', 'and the thyme'])
      h.tg.text({ userId: ALLOWED_USER, text });
    await h.model.waitForRequest(2);
    let writes = 0;
    const writer = setInterval(() => {
      packDb.prepare('INSERT INTO plants (name) VALUES (?)').run(`seedling ${++writes}`);
    }, 2);
    const out = tempDir();
    const backup = await run(backupCommand, [out], h.env, h.home);
    clearInterval(writer);
    packDb.close();
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(writes).toBeGreaterThan(0);
    await settled(h, 4);
    const [archive] = readdirSync(out).filter((f) => f.endsWith('.tar.gz'));
    expect(archive).toMatch(/^satchel-backup-\d{8}-\d{6}\.tar\.gz$/);
    expect(backup.out).toContain(`to ${path.join(out, archive!)}`);
    expect(backup.out).toContain('packs: alpha');
    expect(readdirSync(out)).toEqual([archive]); // no partial file or staging left behind

    // Plain tar reads it too, long and non-ASCII names included.
    const listing = spawnSync('tar', ['-tzf', path.join(out, archive!)], { encoding: 'utf8' });
    expect(listing.status).toBe(0);
    expect(listing.stdout.split('\n')).toContain(
      `packs/alpha/files/photos/ü/${'long-name-'.repeat(12)}.txt`,
    );

    const finalUsage = h.rows('SELECT * FROM usage_events ORDER BY id');
    await h.stop();

    // Restore into a fresh home and start a bot on it.
    const restored = path.join(tempDir(), 'restored-home');
    const restore = await run(
      restoreCommand,
      [path.join(out, archive!), '--home', restored],
      { SATCHEL_HOME: h.home },
      out,
    );
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain(`into ${restored}`);

    expect(rowsOf(path.join(restored, 'satchel.db'), 'SELECT pack, tool FROM tool_grants')).toEqual(
      [{ pack: 'alpha', tool: 'memory' }],
    );
    // Each database is one consistent moment: whole rows, between "before" and "after".
    const plants = rowsOf(path.join(restored, 'packs', 'alpha', 'pack.db'), 'SELECT * FROM plants');
    expect(plants[0]).toMatchObject({ name: 'basil', watered_on: '2025-06-01' });
    expect(plants.length).toBeLessThanOrEqual(1 + writes);
    expect(readFileSync(path.join(restored, 'packs', 'alpha', 'USER.md'), 'utf8')).toBe(
      '# User\nGrows basil on the balcony.\n',
    );
    expect(
      readFileSync(path.join(restored, 'packs', 'alpha', 'files', 'care guide (2).txt'), 'utf8'),
    ).toBe('water every 2 days\n');
    expect(readdirSync(path.join(restored, 'packs', 'alpha', 'files', 'photos', 'ü'))).toEqual([
      `${'long-name-'.repeat(12)}.txt`,
    ]);

    // Telegram numbers updates on from where the first bot left off.
    const h2 = await harness.start(
      { SATCHEL_HOME: restored, SATCHEL_PACKS: packs },
      { beforeStart: (tg) => tg.continueUpdateIdsFrom(100) },
    );
    expect(h2.rows('SELECT * FROM sessions ORDER BY id').slice(0, before.sessions.length)).toEqual(
      before.sessions,
    );
    const usage = h2.rows('SELECT * FROM usage_events ORDER BY id');
    expect(usage.slice(0, before.usage.length)).toEqual(before.usage);
    expect(finalUsage.slice(0, usage.length)).toEqual(usage);
    // The same session answers: the model sees the conversation from before the backup.
    // (Turns that were in flight when the backup was taken are replayed first: from the
    // restored data's point of view they were never answered.)
    h2.tg.text({ userId: ALLOWED_USER, text: 'what did I say about basil?' });
    await vi.waitFor(() => {
      const asked = h2.model.chatRequests().map((r) => userTexts(r));
      const last = asked.find((texts) => texts.at(-1) === 'what did I say about basil?');
      expect(last).toBeDefined();
      expect(last).toContain('my basil needs water');
    });
  });

  it('restores the installed packs and the model catalog: the same pack list and models', async () => {
    const packs = fixturePacks(['alpha']);
    const h = await harness.start({ SATCHEL_PACKS: packs });
    const dir = tempDir();
    const added = await run(createPackAddCommand(), [packSource(dir, 'beta'), '--yes'], h.env, dir);
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    writeFileSync(
      path.join(h.home, 'models.yaml'),
      'openai:gpt-5-mini: { input: 0.25, cached_input: 0.025, output: 2, images: true }\n',
    );
    // The output names the home, and its columns are as wide as its paths: those aside, the same.
    const show = async (home: string) => {
      const env = { ...h.env, SATCHEL_HOME: home };
      const same = (text: string) =>
        text.replaceAll(home, 'HOME').replace(/-{2,}/g, '-').replace(/ {2,}/g, ' ');
      const list = await run(packListCommand, [], env, dir);
      const models = await run(modelsCommand, [], env, dir);
      return { list: same(list.out), models: same(models.out) };
    };
    const before = await show(h.home);
    expect(before.list).toContain('HOME/installed-packs\n beta');
    expect(before.models).toMatch(/openai:gpt-5-mini .*HOME\/models\.yaml\n/);
    const archive = path.join(dir, 'b.tar.gz');
    const backup = await run(backupCommand, [archive], h.env, dir);
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    await h.stop();

    const restored = path.join(tempDir(), 'restored-home');
    // An installed pack is code: without a terminal it takes --yes, after its permissions.
    const restore = await run(restoreCommand, [archive, '--home', restored, '--yes'], {}, dir);
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain('beta 0.2.0 (Beta Books) may use:');
    expect(restore.out).toContain('installed packs: beta)');
    expect(await show(restored)).toEqual(before);
  });

  it('names a SATCHEL_MODELS file outside SATCHEL_HOME, which the backup does not hold', async () => {
    const h = await harness.start();
    const dir = tempDir();
    const models = path.join(dir, 'prices.yaml');
    writeFileSync(models, 'openai:gpt-5-mini: { input: 0.25, output: 2 }\n');
    const archive = path.join(dir, 'b.tar.gz');
    const backup = await run(backupCommand, [archive], { ...h.env, SATCHEL_MODELS: models }, dir);
    expect(backup.code).toBe(0);
    expect(backup.out).toContain(
      `Your model catalog ${models} (SATCHEL_MODELS) lies outside ${h.home} and is not in the archive`,
    );
  });

  it('writes an archive tar reads: a manifest first, then the databases and files', async () => {
    const h = await harness.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const archive = path.join(tempDir(), 'nightly.tar.gz');
    const { code } = await run(backupCommand, [archive], h.env, h.home);
    expect(code).toBe(0);
    const names = tarNames(gunzipSync(readFileSync(archive)));
    expect(names).toEqual([
      'satchel-backup.json',
      'satchel.db',
      'packs/alpha/pack.db',
      'packs/alpha/USER.md',
      'packs/alpha/MEMORY.md',
    ]);
  });

  it('with no path writes SATCHEL_HOME/backups/<date>.tar.gz, out of the working directory, and the next backup leaves that folder out', async () => {
    const h = await harness.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const cwd = tempDir();
    const first = await run(backupCommand, [], h.env, cwd);
    expect(first.code).toBe(0);
    const folder = path.join(h.home, 'backups');
    const [archive] = readdirSync(folder);
    expect(archive).toMatch(/^\d{8}-\d{6}\.tar\.gz$/);
    expect(first.out).toContain(`to ${path.join(folder, archive!)} (`);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(readdirSync(cwd)).toEqual([]);
    // What setup keeps there too (an old .env) is never archived.
    writeFileSync(path.join(folder, 'env-20260101-000000'), 'OPENAI_API_KEY=sk-old\n');
    const second = path.join(tempDir(), 'second.tar.gz');
    expect((await run(backupCommand, [second], h.env, cwd)).code).toBe(0);
    const names = tarNames(gunzipSync(readFileSync(second)));
    expect(names).toContain('satchel.db');
    expect(names.filter((n) => n.startsWith('backups'))).toEqual([]);
  });

  it('refuses to restore over data, and leaves it as it was', async () => {
    const h = await harness.start();
    const archive = path.join(tempDir(), 'b.tar.gz');
    expect((await run(backupCommand, [archive], h.env, h.home)).code).toBe(0);
    const { code, err } = await run(restoreCommand, [archive], h.env, h.home);
    expect(code).toBe(1);
    expect(err).toContain('is not empty');
    expect(err).toContain('move that directory aside');
    expect(h.rows('SELECT 1 FROM sessions')).toEqual([]);
  });

  it('refuses a damaged archive and writes nothing', async () => {
    const h = await harness.start();
    const dir = tempDir();
    const archive = path.join(dir, 'b.tar.gz');
    expect((await run(backupCommand, [archive], h.env, h.home)).code).toBe(0);
    const bytes = gunzipSync(readFileSync(archive));
    // Flip a byte inside satchel.db's content (the second entry, after the manifest).
    bytes[bytes.length - 2048] = (bytes[bytes.length - 2048] ?? 0) ^ 0xff;
    const damaged = path.join(dir, 'damaged.tar');
    writeFileSync(damaged, (await import('node:zlib')).gzipSync(bytes));
    const target = path.join(dir, 'home');
    const { code, err } = await run(restoreCommand, [damaged, '--home', target], {}, dir);
    expect(code).toBe(1);
    expect(err).toContain('the archive is damaged: satchel.db does not match its checksum');
    expect(readdirSync(dir).sort()).toEqual(['b.tar.gz', 'damaged.tar']);
  });

  it('restores a backup with 64 MiB of zeros after the archive end, never holding them in memory', async () => {
    const h = await harness.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const dir = tempDir();
    const archive = path.join(dir, 'b.tar.gz');
    expect((await run(backupCommand, [archive], h.env, h.home)).code).toBe(0);
    const padded = path.join(dir, 'padded.tar.gz');
    const mib = 1024 * 1024;
    writeFileSync(padded, await gzipWithZerosAfter(gunzipSync(readFileSync(archive)), 64 * mib));
    const target = path.join(dir, 'home');
    const memory = bufferPeak();
    const { code, out, err } = await run(restoreCommand, [padded, '--home', target], {}, dir);
    const grew = memory.stop();
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('Restored the backup of');
    expect(readdirSync(target)).toContain('satchel.db');
    expect(grew).toBeLessThan(16 * mib);
  });

  it('restores a backup written by an earlier satchel, with its hand-written tar', async () => {
    const fixture = fileURLToPath(
      new URL('../fixtures/backups/hand-written-tar.tar.gz', import.meta.url),
    );
    const target = path.join(tempDir(), 'home');
    const { code, out } = await run(restoreCommand, [fixture, '--home', target], {}, tempDir());
    expect(code).toBe(0);
    expect(out).toContain('Restored the backup of 2025-06-01T03:00:00.000Z');
    expect(rowsOf(path.join(target, 'satchel.db'), 'SELECT text FROM notes')).toEqual([
      { text: 'from the old format' },
    ]);
    const long = path.join(target, 'packs', 'alpha', 'files', 'ü', `${'long-'.repeat(30)}.txt`);
    expect(readFileSync(long, 'utf8')).toBe('kept\n');
  });

  it('says so when SATCHEL_HOME holds no satchel data', async () => {
    const dir = tempDir();
    const { code, err } = await run(backupCommand, [], { SATCHEL_HOME: 'nothing-here' }, dir);
    expect(code).toBe(1);
    expect(err).toContain(`${path.join(dir, 'nothing-here')} holds no satchel data`);
  });
});

/** The entry names of a tar archive, pax `path` records applied. */
function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  let pax: string | undefined;
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(header.toString('ascii', 124, 135), 8);
    const type = String.fromCharCode(header[156]!);
    const body = tar.subarray(at + 512, at + 512 + size);
    if (type === 'x') pax = /path=(.*)\n/.exec(body.toString('utf8'))?.[1];
    else {
      names.push(pax ?? header.toString('utf8', 0, 100).replace(/\0.*$/s, ''));
      pax = undefined;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}
