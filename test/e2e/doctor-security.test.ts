import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backupCommand } from '../../src/cli/backup.ts';
import { doctorCommand } from '../../src/cli/doctor.ts';
import { parseConfig } from '../../src/config/config.ts';
import { recordBackup } from '../../src/ops/backup-record.ts';
import { runSecurityDoctor } from '../../src/ops/doctor-security.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { Database } from '../../src/store/sqlite.ts';
import { recordingIo } from '../support/cli-io.ts';
import { packSource } from '../support/pack-sources.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-doctor-security-');
const DAY = 86_400_000;
const mode = (file: string) => `0${(statSync(file).mode & 0o777).toString(8)}`;

/**
 * A tidy installation: `.env` 0600 in the working directory, a migrated SATCHEL_HOME made by
 * satchel itself, an empty pack folder, a backup from yesterday.
 */
function installation(extraEnv: Record<string, string> = {}) {
  const cwd = temp();
  const home = path.join(cwd, 'data');
  const packs = path.join(cwd, 'packs');
  mkdirSync(packs);
  openCoreStore(home).close();
  recordBackup(home, { at: Date.now() - DAY, archive: '/backups/yesterday.tar.gz' });
  const env: Record<string, string> = {
    TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
    ALLOWED_USER_IDS: '111',
    OPENAI_API_KEY: 'sk-test-key',
    SATCHEL_HOME: home,
    SATCHEL_PACKS: packs,
    ...extraEnv,
  };
  const envFile = path.join(cwd, '.env');
  writeFileSync(envFile, 'OPENAI_API_KEY=sk-test-key\n', { mode: 0o600 });
  chmodSync(envFile, 0o600);
  return { cwd, home, packs, env, envFile };
}

async function doctor(w: ReturnType<typeof installation>, ...args: string[]) {
  const io = recordingIo(w.env, w.cwd);
  const code = await doctorCommand.run(['--security', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** The checklist's lines that start with `mark` (✓, ✗ or !). */
const marked = (out: string, mark: string) => out.split('\n').filter((l) => l.startsWith(mark));

describe('satchel doctor --security', () => {
  it('passes a tidy installation: every line ✓, exit 0', async () => {
    const w = installation();
    const done = await doctor(w);
    expect(done.err).toBe('');
    expect(marked(done.out, '✗')).toEqual([]);
    expect(marked(done.out, '!')).toEqual([]);
    expect(done.out).toContain('✓ .env: readable by its owner only (0600)\n');
    expect(done.out).toContain('✓ dashboard: bound to 127.0.0.1 (this machine only)\n');
    expect(done.out).toContain('✓ backup: the last one is from ');
    expect(done.code).toBe(0);
  });

  it('fails on .env and SATCHEL_HOME open to other users; --fix makes them private and says what changed', async () => {
    const w = installation();
    chmodSync(w.envFile, 0o644);
    chmodSync(w.home, 0o755);
    chmodSync(path.join(w.home, 'satchel.db'), 0o644);
    const loose = await doctor(w);
    expect(loose.code).toBe(1);
    expect(marked(loose.out, '✗')).toEqual([
      '✗ .env is open to other users (0644): they can read the bot token and API keys',
      '✗ SATCHEL_HOME is open to other users: 1 file(s) and 1 folder(s) (conversations, the ledger, pack data)',
    ]);
    expect(loose.out).toContain(`    0644  ${path.join(w.home, 'satchel.db')}\n`);
    expect(loose.out).toContain(`    fix: Run \`chmod -R go-rwx ${w.home}\``);

    const fixed = await doctor(w, '--fix');
    // The first run's read of satchel.db left -wal and -shm files in its mode (0644): fixed too.
    expect(fixed.out).toMatch(/^Fixed \d+ file mode\(s\):\n/);
    for (const line of [
      `  ${w.envFile}: 0644 → 0600\n`,
      `  ${w.home}: 0755 → 0700\n`,
      `  ${path.join(w.home, 'satchel.db')}: 0644 → 0600\n`,
    ])
      expect(fixed.out).toContain(line);
    expect(fixed.code).toBe(0);
    expect([mode(w.envFile), mode(w.home), mode(path.join(w.home, 'satchel.db'))]).toEqual([
      '0600',
      '0700',
      '0600',
    ]);
    const again = await doctor(w);
    expect(marked(again.out, '✗')).toEqual([]);
    expect(again.code).toBe(0);
  });

  it('judges a .env that is a link by the file it leads to, and --fix changes no file outside SATCHEL_HOME', async () => {
    const w = installation();
    const elsewhere = path.join(realpathSync(temp()), 'shared.env');
    writeFileSync(elsewhere, 'OPENAI_API_KEY=sk-test-key\n');
    chmodSync(elsewhere, 0o600);
    rmSync(w.envFile);
    symlinkSync(elsewhere, w.envFile);
    // The link's own mode (0777) is not the file's: a private target passes.
    const tidy = await doctor(w);
    expect(tidy.out).toContain(
      `✓ .env (a link to ${elsewhere}): readable by its owner only (0600)\n`,
    );
    expect(tidy.code).toBe(0);

    chmodSync(elsewhere, 0o644);
    const open = await doctor(w);
    expect(marked(open.out, '✗')).toEqual([
      `✗ .env (a link to ${elsewhere}) is open to other users (0644): they can read the bot token and API keys`,
    ]);
    const fixed = await doctor(w, '--fix');
    expect(fixed.out).toContain(
      `Nothing to fix in file modes.\nLeft 1 as they are:\n  ${w.envFile}: a link to ${elsewhere}, outside SATCHEL_HOME: left as it is (run \`chmod 600 ${elsewhere}\` if nothing else needs to read it)\n`,
    );
    expect(mode(elsewhere)).toBe('0644');
    expect(fixed.code).toBe(1);

    // A link that leads nowhere exposes nothing: a warning, not "none".
    rmSync(elsewhere);
    expect(marked((await doctor(w)).out, '!')).toEqual([
      `! .env is a link to ${elsewhere}, which does not exist: npm start reads no settings from it`,
    ]);
  });

  it('--fix leaves a file with other names (a hard link) as it is, as .env or in SATCHEL_HOME, and says so', async () => {
    const w = installation();
    const outside = temp();
    const shared = path.join(outside, 'shared.env');
    rmSync(w.envFile);
    writeFileSync(shared, 'OPENAI_API_KEY=sk-test-key\n');
    chmodSync(shared, 0o644);
    linkSync(shared, w.envFile);
    const readable = path.join(outside, 'notes.txt');
    writeFileSync(readable, 'for everyone');
    chmodSync(readable, 0o644);
    linkSync(readable, path.join(w.home, 'notes.txt'));

    const fixed = await doctor(w, '--fix');
    expect([mode(shared), mode(readable)]).toEqual(['0644', '0644']);
    expect(fixed.out).toContain('Left 2 as they are:\n');
    expect(fixed.out).toContain(
      `  ${w.envFile}: 0644, left as it is: the file has 2 names (hard links), and its other names would change too`,
    );
    expect(fixed.out).toContain(
      `  ${path.join(w.home, 'notes.txt')}: 0644, left as it is: the file has 2 names (hard links)`,
    );
    expect(marked(fixed.out, '✗')).toEqual([
      '✗ .env is open to other users (0644): they can read the bot token and API keys',
      '✗ SATCHEL_HOME is open to other users: 1 file(s) and 0 folder(s) (conversations, the ledger, pack data)',
    ]);
    expect(fixed.code).toBe(1);
  });

  it('sees through a SATCHEL_HOME that is a link, and --fix makes the files it leads to private', async () => {
    const w = installation();
    const real = path.join(realpathSync(temp()), 'real-home');
    renameSync(w.home, real);
    symlinkSync(real, w.home);
    chmodSync(real, 0o777);
    chmodSync(path.join(real, 'satchel.db'), 0o666);

    const open = await doctor(w);
    expect(marked(open.out, '✗')).toEqual([
      `✗ SATCHEL_HOME (a link to ${real}) is open to other users: 1 file(s) and 1 folder(s) (conversations, the ledger, pack data)`,
    ]);
    expect(open.out).toContain(`    0666  ${path.join(real, 'satchel.db')}\n`);
    expect(open.code).toBe(1);

    const fixed = await doctor(w, '--fix');
    expect(fixed.out).toContain(`  ${real}: 0777 → 0700\n`);
    expect(fixed.out).toContain(`  ${path.join(real, 'satchel.db')}: 0666 → 0600\n`);
    expect([mode(real), mode(path.join(real, 'satchel.db'))]).toEqual(['0700', '0600']);
    expect(fixed.out).toContain(`✓ SATCHEL_HOME (a link to ${real}): readable by its owner only`);
    expect(fixed.code).toBe(0);
  });

  it('fails on an empty allowlist while Telegram is configured', async () => {
    const w = installation({ ALLOWED_USER_IDS: '' });
    const done = await doctor(w);
    expect(marked(done.out, '✗')).toEqual([
      '✗ allowlist: ALLOWED_USER_IDS is empty while Telegram is configured: nobody can use or own the bot (no owner approves tool calls)',
    ]);
    expect(done.code).toBe(1);
    const web = installation({ ALLOWED_USER_IDS: '', TELEGRAM_BOT_TOKEN: '' });
    expect((await doctor(web)).out).toContain('✓ allowlist: Telegram is not configured\n');
  });

  it.each([
    [
      { DASHBOARD_TOKEN: 'letmein' },
      '! dashboard token: DASHBOARD_TOKEN is weak (7 characters, 6 different): anyone on this machine who guesses it reads every conversation',
    ],
    [
      {
        TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/hook',
        TELEGRAM_WEBHOOK_SECRET: 'secret',
      },
      '! webhook secret: TELEGRAM_WEBHOOK_SECRET is weak (6 characters): whoever guesses it can post updates as any user',
    ],
    [
      { TOOL_APPROVAL: 'off' },
      '! tool approval: TOOL_APPROVAL=off: a web page, search result or MCP result can make satchel write or send without asking you',
    ],
  ])('warns (exit 0) on %o', async (env, line) => {
    const w = installation(env);
    const done = await doctor(w);
    expect(marked(done.out, '!')).toEqual([line]);
    expect(done.code).toBe(0);
  });

  it('a strong dashboard token and webhook secret pass', async () => {
    const strong = 'f3a9c1d87e6b5a4f3e2d1c0b9a8f7e6d';
    const w = installation({
      DASHBOARD_TOKEN: strong,
      TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/hook',
      TELEGRAM_WEBHOOK_SECRET: strong,
    });
    const done = await doctor(w);
    expect(marked(done.out, '!')).toEqual([]);
    expect(done.out).toContain('✓ webhook secret: long and varied\n');
  });

  it('warns on a pack that combines web access with external tools', async () => {
    const w = installation();
    const src = packSource(w.cwd, 'alpha');
    const manifest = path.join(src, 'pack.yml');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('tools: [memory,', 'tools: [web_fetch, memory,'),
    );
    renameSync(src, path.join(w.packs, 'alpha'));
    const done = await doctor(w);
    expect(marked(done.out, '!')).toEqual([
      '! pack alpha combines web access (web_fetch) with external tools (send_message): a page it reads could steer it to send your data out',
    ]);
  });

  it('passes the bundled packs without a warning: those that read the web send no files', async () => {
    const bundled = fileURLToPath(new URL('../../packs', import.meta.url));
    const w = installation({ SATCHEL_PACKS: bundled });
    const done = await doctor(w);
    expect(marked(done.out, '!')).toEqual([]);
    expect(marked(done.out, '✗')).toEqual([]);
    expect(done.out).toContain('✓ web and external tools: no pack has both (4 pack(s))\n');
    expect(done.code).toBe(0);
  });

  it('passes a pack that reads the web and declares send_files: false', async () => {
    const w = installation();
    const src = packSource(w.cwd, 'alpha');
    const manifest = path.join(src, 'pack.yml');
    writeFileSync(
      manifest,
      `${readFileSync(manifest, 'utf8').replace('tools: [memory,', 'tools: [web_fetch, memory,')}send_files: false\n`,
    );
    renameSync(src, path.join(w.packs, 'alpha'));
    const done = await doctor(w);
    expect(marked(done.out, '!')).toEqual([]);
    expect(done.out).toContain('✓ web and external tools: no pack has both (1 pack(s))\n');
  });

  it('warns on secret-shaped values stored in satchel.db (not the conversation) and in pack databases, never showing them', async () => {
    const w = installation();
    const key = `sk-${'a1B2'.repeat(8)}`;
    const core = new Database(path.join(w.home, 'satchel.db'));
    const outbox = core.prepare(
      "INSERT INTO outbox (chat_id, kind, payload, created_at) VALUES (1, 'text', ?, 0)",
    );
    outbox.run(JSON.stringify({ text: `your key is ${key}` }));
    outbox.run(JSON.stringify({ text: `Bearer ${'x'.repeat(20)}` }));
    core
      .prepare(
        "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES ('s', 't', 'user', ?, 0)",
      )
      .run(`my key ${key}`);
    core.close();
    mkdirSync(path.join(w.home, 'packs', 'vault'), { recursive: true });
    const pack = new Database(path.join(w.home, 'packs', 'vault', 'pack.db'));
    pack.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    pack.prepare('INSERT INTO notes (body) VALUES (?)').run(`gsk_${'Q'.repeat(30)}`);
    pack.close();
    chmodSync(path.join(w.home, 'packs', 'vault', 'pack.db'), 0o600);
    chmodSync(path.join(w.home, 'packs', 'vault'), 0o700);
    chmodSync(path.join(w.home, 'packs'), 0o700);

    const done = await doctor(w);
    expect(marked(done.out, '!')).toEqual([
      '! stored secrets: 3 secret-shaped value(s) in the databases (anyone with a copy or a backup can use them)',
    ]);
    expect(done.out).toContain('    satchel.db: outbox.payload (2 values)\n');
    expect(done.out).toContain(
      `    ${path.join('packs', 'vault', 'pack.db')}: notes.body (1 value)\n`,
    );
    expect(done.out).not.toContain('messages.');
    expect(done.out).not.toContain(key);
    expect(done.out).not.toContain('QQQQ');
    expect(done.code).toBe(0);
  });

  it('warns when no backup is recorded or the last is over a week old; satchel backup records one', async () => {
    const w = installation();
    recordBackup(w.home, { at: Date.now() - 9 * DAY, archive: '/backups/old.tar.gz' });
    expect(marked((await doctor(w)).out, '!')).toEqual([
      expect.stringMatching(
        /^! backup: the last one is 9 days old \(\d{4}-\d\d-\d\d, \/backups\/old\.tar\.gz\)$/,
      ),
    ]);
    const fresh = installation();
    rmSync(path.join(fresh.home, 'last-backup.json'));
    expect(marked((await doctor(fresh)).out, '!')).toEqual([
      '! backup: none recorded (`npx satchel backup` notes each one it writes)',
    ]);
    const io = recordingIo(fresh.env, fresh.cwd);
    expect(await backupCommand.run([path.join(fresh.cwd, 'b.tar.gz')], io)).toBe(0);
    const after = await doctor(fresh);
    expect(after.out).toContain(`/b.tar.gz)\n`);
    expect(marked(after.out, '!')).toEqual([]);
  });

  it('lists withheld MCP tools through its hook, and none for packs without servers', async () => {
    const w = installation();
    const withheld = await runSecurityDoctor({
      env: w.env,
      cwd: w.cwd,
      now: Date.now(),
      withheldTools: async () => [{ pack: 'vault', server: 'files', tool: 'delete' }],
    });
    const check = withheld.checks.find((c) => c.title.startsWith('MCP tools'));
    expect(check).toEqual({
      status: 'warn',
      title: 'MCP tools: 1 withheld (changed since you accepted them; the model does not get them)',
      fix: 'Review each change with `npx satchel pack trust PACK`.',
      detail: ['vault: files__delete'],
    });
    expect(parseConfig(w.env).trust.approval).toBe('tainted');
    expect((await doctor(w)).out).toContain('✓ MCP tools: none withheld');
  });

  it('--fix goes with --security', async () => {
    const w = installation();
    const io = recordingIo(w.env, w.cwd);
    await expect(doctorCommand.run(['--fix'], io)).rejects.toThrow('--fix goes with --security');
  });
});
