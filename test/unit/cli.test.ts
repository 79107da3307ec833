import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.ts';
import { chatCommand } from '../../src/cli/chat.ts';
import type { CliCommand } from '../../src/cli/command.ts';
import { COMMANDS, satchel as runSatchel } from '../../src/cli/commands.ts';
import { runCli } from '../../src/cli/dispatch.ts';
import { doctorCommand } from '../../src/cli/doctor.ts';
import { packListCommand } from '../../src/cli/pack-list.ts';
import { packNewCommand } from '../../src/cli/pack-new.ts';
import { usageCommand } from '../../src/cli/usage.ts';
import { recordingIo } from '../support/cli-io.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-cli-');

/** An empty working directory: no `.env` of the developer's reaches the command. */
const CWD = mkdtempSync(path.join(tmpdir(), 'satchel-cli-cwd-'));
afterAll(() => rmSync(CWD, { recursive: true, force: true }));

/**
 * `satchel ARGS` in process, through the CLI's own entry (src/cli/commands.ts) with an empty
 * environment: its exit code and what it wrote. test/e2e/cli-process.test.ts runs the bin.
 */
const satchel = async (...args: string[]) => {
  const io = recordingIo({}, CWD);
  const status = await runSatchel(args, io);
  return { status, stdout: io.out(), stderr: io.err() };
};

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('the satchel command', () => {
  it('prints its help with every command on stdout and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await satchel(flag);
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^Usage: npx satchel <command>/);
      for (const command of [
        'setup',
        'start',
        'chat',
        'usage',
        'models',
        'pack validate',
        'pack new',
        'pack list',
        'pack test',
        'pack add',
        'pack remove',
        'pack trust',
      ])
        expect(run.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    }
  });

  it("prints a command's help on stdout and exits 0, without running it", async () => {
    for (const command of [
      ['start'],
      ['chat'],
      ['pack', 'validate'],
      ['pack', 'test'],
      ['usage'],
    ]) {
      const run = await satchel(...command, '--help');
      expect(run.status, command.join(' ')).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(new RegExp(`^Usage: npx satchel ${command.join(' ')}`));
    }
  });

  it("prints package.json's version", async () => {
    for (const flag of ['--version', '-v']) {
      const run = await satchel(flag);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${VERSION}\n`);
    }
  });

  it('names an unknown command on stderr and exits 2', async () => {
    const run = await satchel('frobnicate', '--now');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^satchel: unknown command "frobnicate"\n\nUsage: npx satchel/);
    const sub = await satchel('pack', 'frobnicate');
    expect(sub.status).toBe(2);
    expect(sub.stderr).toContain('unknown command "pack frobnicate"');
  });

  it('refuses a bad option with the command’s usage on stderr, and exits 2', async () => {
    const run = await satchel('chat', '--pak', 'alpha');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^satchel chat: unknown option --pak \(did you mean --pack\?\)\n\nUsage: npx satchel chat/,
    );
    const global = await satchel('--verbose');
    expect(global.status).toBe(2);
    expect(global.stderr).toMatch(/^satchel: unknown option --verbose\n/);
  });

  it('refuses arguments to start with exit 2, before the bot is loaded', async () => {
    // `satchel start` itself runs in test/e2e/cli-process.test.ts: it owns its process.
    const run = await satchel('start', 'now');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^satchel start: unexpected argument "now"\n\nUsage: npx satchel start/,
    );
  });

  it('needs no Telegram token for chat: a missing model key is what it names', async () => {
    const run = await satchel('chat');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('OPENAI_API_KEY is required');
    expect(run.stderr).not.toContain('TELEGRAM_BOT_TOKEN');
  });

  it('loads, for each command in its table, the command it describes', async () => {
    const paths = new Set<string>();
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(command.path, entry.path.join(' ')).toEqual(entry.path);
      expect(command.summary).toBe(entry.summary);
      expect(command.help).toBe(entry.help);
      expect(typeof command.run).toBe('function');
      paths.add(entry.path.join(' '));
    }
    expect(paths.size).toBe(COMMANDS.length);
  }, 60_000); // every command's module, and through them most of satchel
});

describe('the command dispatcher', () => {
  const ran: string[][] = [];
  const command = (path: string[]): CliCommand => ({
    path,
    summary: `does ${path.join(' ')}`,
    help: `Usage: satchel ${path.join(' ')} ARG`,
    async run(args) {
      if (args[0] === 'bad') throw new UsageError('that argument is bad');
      ran.push([...path, ...args]);
      return 0;
    },
  });
  const cli = {
    commands: [command(['go']), command(['pack', 'a']), command(['pack', 'b'])],
    version: '9.9.9',
  };
  const io = () => recordingIo({}, '/');

  it('runs the command with the words after its path', async () => {
    ran.length = 0;
    expect(await runCli(cli, ['pack', 'b', 'x', '--flag'], io())).toBe(0);
    expect(ran).toEqual([['pack', 'b', 'x', '--flag']]);
  });

  it('lists a group on --help, and asks which command when none is given', async () => {
    const help = io();
    expect(await runCli(cli, ['pack', '--help'], help)).toBe(0);
    expect(help.out()).toContain('Usage: npx satchel pack <command>');
    expect(help.out()).toMatch(/^ {2}pack a +does pack a$/m);
    expect(help.out()).not.toContain('  go');
    const bare = io();
    expect(await runCli(cli, ['pack'], bare)).toBe(2);
    expect(bare.err()).toMatch(/^satchel pack: which command\?/);
    const none = io();
    expect(await runCli(cli, [], none)).toBe(2);
    expect(none.err()).toContain('Usage: npx satchel <command>');
  });

  it('answers --help before the command runs, but not after --', async () => {
    ran.length = 0;
    const help = io();
    expect(await runCli(cli, ['go', 'x', '-h'], help)).toBe(0);
    expect(help.out()).toBe('Usage: satchel go ARG\n');
    expect(await runCli(cli, ['go', '--', '--help'], io())).toBe(0);
    expect(ran).toEqual([['go', '--', '--help']]);
  });

  it("turns a command's UsageError into its usage on stderr and exit 2", async () => {
    const bad = io();
    expect(await runCli(cli, ['go', 'bad'], bad)).toBe(2);
    expect(bad.err()).toBe('satchel go: that argument is bad\n\nUsage: satchel go ARG\n');
  });
});

describe('typos', () => {
  const cli = {
    commands: [doctorCommand, usageCommand, chatCommand, packListCommand, packNewCommand],
    version: '9.9.9',
  };
  const run = async (...argv: string[]) => {
    const io = recordingIo({}, CWD);
    return { code: await runCli(cli, argv, io), err: io.err(), out: io.out() };
  };

  it('suggests the nearest command: doctr → doctor, pack lst → pack list', async () => {
    const doctr = await run('doctr');
    expect(doctr.code).toBe(2);
    expect(doctr.err).toMatch(/^satchel: unknown command "doctr" \(did you mean doctor\?\)\n/);
    const lst = await run('pack', 'lst');
    expect(lst.err).toMatch(/^satchel: unknown command "pack lst" \(did you mean pack list\?\)\n/);
    const far = await run('frobnicate');
    expect(far.err).toMatch(/^satchel: unknown command "frobnicate"\n/);
  });

  it("suggests the nearest option instead of Node's advice about --", async () => {
    const days = await run('usage', '--dayz', '3');
    expect(days.code).toBe(2);
    expect(days.err).toMatch(/^satchel usage: unknown option --dayz \(did you mean --days\?\)\n/);
    const pack = await run('chat', '--pak', 'vocab');
    expect(pack.code).toBe(2);
    expect(pack.err).toMatch(/^satchel chat: unknown option --pak \(did you mean --pack\?\)\n/);
    expect(pack.err).not.toContain("after '--'");
    const global = await run('--verison');
    expect(global.err).toMatch(/^satchel: unknown option --verison \(did you mean --version\?\)\n/);
  });
});

describe('hints', () => {
  // A clone has no `satchel` on PATH: a command the CLI tells the user to run says npx.
  it('spell the commands to run as npx satchel …', async () => {
    const help = recordingIo({}, CWD);
    await runCli({ commands: [packListCommand], version: '9.9.9' }, ['--help'], help);
    expect(help.out()).toContain("Run npx satchel <command> --help for a command's options.");
    const packs = tempDir();
    const list = recordingIo({ SATCHEL_PACKS: packs, SATCHEL_HOME: tempDir() }, CWD);
    expect(await packListCommand.run([], list)).toBe(0);
    expect(list.out()).toContain('Create one with: npx satchel pack new NAME');
  });
});

describe('satchel pack validate', () => {
  it('summarizes a valid pack and exits 0', async () => {
    const run = await satchel('pack', 'validate', path.join(FIXTURE_PACKS, 'alpha'));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('ok: alpha 1.0.0 (Alpha Garden)');
    expect(run.stdout).toContain('skills: /alpha_one, alpha_two');
  });

  it('prints file, field and problem for a bad manifest and exits non-zero', async () => {
    const dir = path.join(tempDir(), 'beta');
    cpSync(path.join(FIXTURE_PACKS, 'beta'), dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'pack.yml'),
      'name: beta\nversion: 1.0.0\ndisplay_name: Beta\ndescription: d\nskills: [beta_one]\ntools: [shell]\n',
    );
    const run = await satchel('pack', 'validate', dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('`pack.yml` line 6: `tools[0]` — unknown tool `shell`');
  });
});
