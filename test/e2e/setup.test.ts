import {
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/dispatch.ts';
import { createSetupCommand, setupCommand } from '../../src/cli/setup.ts';
import { SetupFailed } from '../../src/setup/ui.ts';
import { writeResult } from '../../src/setup/write-step.ts';
import { TEST_TOKEN } from '../fakes/telegram-server.ts';
import { spawnNode } from '../support/child.ts';
import { recordingIo } from '../support/cli-io.ts';
import { TEST_OPENAI_KEY } from '../support/harness.ts';
import { setupPerTest } from '../support/setup-rig.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OWNER = 4242;
const rig = setupPerTest();
const { envFile, flags, setup, terminal, withKey } = rig;

describe('satchel setup --yes', () => {
  it('writes the .env the answers make, readable by its owner only, and doctor passes on it', async () => {
    const run = await setup(
      flags('--model', 'gpt-4o-mini', '--telegram-token', TEST_TOKEN, '--owner-id', String(OWNER)),
    );
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const written = readFileSync(envFile(), 'utf8');
    // A strong dashboard token, made once: the web chat's sign-in survives restarts.
    const token = /^DASHBOARD_TOKEN=([A-Za-z0-9_-]{32})$/m.exec(written)?.[1];
    expect(token).toBeDefined();
    expect(written).toBe(
      [
        '# Written by `npx satchel setup`. Every other variable, with what it does: .env.example',
        'LLM_PROVIDER=openai',
        `OPENAI_API_KEY=${TEST_OPENAI_KEY}`,
        `OPENAI_BASE_URL=${rig.model.url}/v1`,
        'LLM_MODEL=gpt-4o-mini',
        `TELEGRAM_BOT_TOKEN=${TEST_TOKEN}`,
        `TELEGRAM_API_ROOT=${rig.tg.apiRoot}`,
        `ALLOWED_USER_IDS=${OWNER}`,
        `DASHBOARD_TOKEN=${token}`,
        '',
      ].join('\n'),
    );
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    expect(run.out).toContain('✓ Telegram: token accepted, the bot is @satchel_test_bot');
    expect(run.out).toContain('✓ openai: key accepted; gpt-4o-mini (chat)');
    expect(run.out).toContain('All checks passed');
    expect(run.out).toContain('npm start');
  });

  it('picks the default model the key lists, and without a token writes no Telegram variable', async () => {
    const run = await setup(flags());
    expect(run.code).toBe(0);
    const text = readFileSync(envFile(), 'utf8');
    expect(text).toContain('LLM_MODEL=gpt-4.1-mini\n');
    expect(text).not.toContain('TELEGRAM');
    expect(rig.tg.calls()).toEqual([]);
  });

  it('learns the owner from the first private message and acknowledges nothing after it', async () => {
    const running = setup(flags('--telegram-token', TEST_TOKEN));
    await rig.tg.waitForCall('getUpdates');
    const first = rig.tg.text({ userId: OWNER, text: 'hi' });
    rig.tg.text({ userId: OWNER, text: 'the bot should still get this one' });
    const run = await running;
    expect(run.code).toBe(0);
    expect(readFileSync(envFile(), 'utf8')).toContain(`ALLOWED_USER_IDS=${OWNER}\n`);
    expect(run.out).toContain(`a message from User, id ${OWNER}: the owner`);
    // The offset confirms the owner's message only: the next one is still Telegram's to give.
    expect(rig.tg.confirmedOffset()).toBe(first + 1);
  });

  it('gives up waiting for the owner after its time, naming --owner-id, and writes nothing', async () => {
    const run = await setup(
      flags('--telegram-token', TEST_TOKEN),
      createSetupCommand({ ownerWaitMs: 300 }),
    );
    expect(run.code).toBe(1);
    expect(run.err).toContain('no private message reached the bot');
    expect(run.err).toContain('--owner-id');
    expect(existsSync(envFile())).toBe(false);
  });

  it('stops on a refused key, naming what failed, and writes nothing', async () => {
    const run = await setup(withKey('sk-wrong-key-123'));
    expect(run.code).toBe(1);
    expect(run.err).toContain('openai: the API key was refused (401)');
    expect(run.err).toContain('OPENAI_API_KEY');
    expect(run.err).toContain('Nothing was written.');
    expect(existsSync(envFile())).toBe(false);
  });

  it('stops on a refused bot token and writes nothing', async () => {
    const run = await setup(flags('--telegram-token', '999:WRONG-token', '--owner-id', '1'));
    expect(run.code).toBe(1);
    expect(run.err).toContain('Telegram: Telegram refused the token (401');
    expect(existsSync(envFile())).toBe(false);
  });

  it('refuses a model the key cannot use', async () => {
    const run = await setup(flags('--model', 'gpt-nope'));
    expect(run.code).toBe(1);
    expect(run.err).toContain('openai does not offer the model "gpt-nope" to this key');
    expect(existsSync(envFile())).toBe(false);
  });

  it('writes another file with --out; with Telegram, the closing checklist has its line', async () => {
    writeFileSync(envFile(), 'OPENAI_API_KEY=mine\n');
    const run = await setup(
      flags('--out', 'other.env', '--telegram-token', TEST_TOKEN, '--owner-id', String(OWNER)),
    );
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(rig.dir, 'other.env'), 'utf8')).toContain(
      'LLM_MODEL=gpt-4.1-mini',
    );
    expect(readFileSync(envFile(), 'utf8')).toBe('OPENAI_API_KEY=mine\n');
    const checklist = run.out.slice(run.out.indexOf('Checking it as npx satchel doctor does'));
    expect(checklist).toContain('✓ Telegram: token accepted, the bot is @satchel_test_bot');
    expect(checklist).toContain(`✓ allowlist: 1 user (${OWNER})`);
    expect(run.out).toContain('copy other.env there as .env');
    expect(run.out).toContain('and message your bot on Telegram');
  });
});

describe('satchel setup --out where no file can be written', () => {
  it('a missing folder or a link that leads nowhere: one sentence before any question or check, nothing written', async () => {
    const missing = await setup(flags('--out', 'missing/dir/.env'));
    expect([missing.code, missing.out]).toEqual([1, '']);
    expect(missing.err).toBe(
      [
        `satchel setup: the folder ${path.join(rig.dir, 'missing', 'dir')} does not exist, so missing/dir/.env cannot be written there`,
        `    fix: Create it first (mkdir -p ${path.join(rig.dir, 'missing', 'dir')}), or give --out a file in a folder that exists.`,
        'Nothing was written.',
        '',
      ].join('\n'),
    );

    symlinkSync(path.join(rig.dir, 'nowhere', 'real.env'), envFile());
    const dangling = await setup(flags());
    expect([dangling.code, dangling.out]).toEqual([1, '']);
    expect(dangling.err).toBe(
      [
        `satchel setup: .env is a link to ${path.join(rig.dir, 'nowhere', 'real.env')}, which does not exist, and setup writes no file through a link`,
        '    fix: Remove the link, or give --out another file.',
        'Nothing was written.',
        '',
      ].join('\n'),
    );
    // Refused before the key was checked, and nothing appeared anywhere.
    expect(rig.model.requests()).toEqual([]);
    expect(readdirSync(rig.dir).sort()).toEqual(['.env']);

    // In a terminal, nothing is asked.
    const t = terminal();
    expect(await setupCommand.run(['--out', 'missing/dir/.env'], t.io)).toBe(1);
    expect(t.io.out()).toBe('');
    expect(t.io.err()).toContain('does not exist, so missing/dir/.env cannot be written there');
  });

  it('a folder gone between the checks and the write is said in one sentence too', () => {
    const result = {
      provider: 'openai' as const,
      access: { apiKey: TEST_OPENAI_KEY },
      model: 'gpt-4.1-mini',
      telegram: undefined,
      apiRoot: 'http://127.0.0.1:9',
    };
    const gone = path.join(rig.dir, 'gone', '.env');
    const write = (file: string) => () => writeResult(file, result, undefined);
    expect(write(gone)).toThrow(SetupFailed);
    expect(write(gone)).toThrow(`${gone} could not be written (ENOENT)`);
    writeFileSync(envFile(), 'OPENAI_API_KEY=mine\n');
    expect(write(envFile())).toThrow(
      `${envFile()} appeared while setup ran, and setup replaces no file without asking`,
    );
    expect(readFileSync(envFile(), 'utf8')).toBe('OPENAI_API_KEY=mine\n');
  });
});

describe('npx satchel setup, the command a person runs', () => {
  it('runs scripted in a child process without a terminal and writes .env', async () => {
    const child = spawnNode(
      [path.join(ROOT, 'scripts/satchel.mjs'), 'setup', ...flags('--model', 'gpt-4.1')],
      { cwd: rig.dir, env: { ...rig.env, PATH: process.env.PATH ?? '' }, stdin: 'ignore' },
      (cleanup) => rig.onCleanup(cleanup),
    );
    expect(await child.exited).toBe(0);
    expect(child.stderr()).toBe('');
    expect(child.stdout()).toContain('All checks passed');
    expect(readFileSync(envFile(), 'utf8')).toContain('LLM_MODEL=gpt-4.1\n');
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
  });
});

describe('satchel setup without --yes', () => {
  it('asks nothing and exits 1 without a terminal', async () => {
    const run = await setup(['--provider', 'openai']);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toContain('no terminal to ask in');
    expect(run.err).toContain('--yes');
    expect(rig.model.requests()).toEqual([]);
    expect(existsSync(envFile())).toBe(false);
  });

  it('suggests the flag meant for a typo', async () => {
    const io = recordingIo(rig.env, rig.dir);
    const cli = { commands: [setupCommand], version: '0' };
    expect(await runCli(cli, ['setup', '--api-kye', 'x'], io)).toBe(2);
    expect(io.err()).toContain('unknown option --api-kye (did you mean --api-key?)');
    expect(await runCli(cli, ['setup', '--provider', 'opnai'], io)).toBe(2);
    expect(io.err()).toContain('(did you mean `openai`?)');
  });
});

describe('satchel setup in a terminal', () => {
  it('asks each question, asks again after a refused key, and learns the owner', async () => {
    const t = terminal();
    const running = setupCommand.run([], t.io);
    await t.answer('Model provider [number or name; Enter: openai]', '1');
    await t.answer('Base URL of an OpenAI-compatible server', `${rig.model.url}/v1`);
    await t.answer('openai API key', 'sk-typo-key-123');
    // Only the key is asked again.
    await vi.waitFor(() => expect(t.io.out().split('openai API key')).toHaveLength(3), {
      timeout: 5000,
      interval: 10,
    });
    expect(t.io.out().split('Base URL of').length).toBe(2);
    t.io.stdin.write(`${TEST_OPENAI_KEY}\n`);
    await t.answer('Chat model [number or name; Enter: gpt-4.1-mini]', 'gpt-4o-mini');
    await t.answer('Bot token', TEST_TOKEN);
    await rig.tg.waitForCall('getUpdates');
    rig.tg.nameUser(OWNER, 'Ann');
    rig.tg.text({ userId: OWNER, text: 'hello' });
    await t.answer(`A message from Ann, id ${OWNER}. Is this you, the owner? [Y/n]`, 'y');
    await t.answer('Speech-to-text [number or name; Enter: off]', 'off');
    await t.answer('Search provider [number or name; Enter: none]', '');
    const code = await running;
    expect(t.io.err()).toBe('');
    expect(code).toBe(0);
    const text = readFileSync(envFile(), 'utf8');
    expect(text).toContain(`OPENAI_API_KEY=${TEST_OPENAI_KEY}\n`);
    expect(text).toContain('LLM_MODEL=gpt-4o-mini\n');
    expect(text).toContain(`ALLOWED_USER_IDS=${OWNER}\n`);
    expect(text).toContain('STT_PROVIDER=off\n');
    expect(text).not.toContain('WEB_SEARCH_PROVIDER');
    expect(t.io.out()).toContain('✗ openai: the API key was refused (401)');
    // The keys typed never appear in what was printed.
    expect(t.io.out()).not.toContain(TEST_OPENAI_KEY);
    expect(t.io.out()).toContain('All checks passed');
    // A local server whose models all have a price: nothing to write at $0, nothing asked.
    expect(t.io.out()).not.toContain('Are its models free');
  });

  it('asks before updating an existing .env: no leaves it as it was', async () => {
    writeFileSync(envFile(), 'OPENAI_API_KEY=mine\n');
    const no = terminal();
    const refused = setupCommand.run([], no.io);
    await no.answer('.env exists. Update it?', 'n');
    expect(await refused).toBe(1);
    expect(no.io.out()).toContain('Nothing was written.');
    expect(readFileSync(envFile(), 'utf8')).toBe('OPENAI_API_KEY=mine\n');
    expect(rig.model.requests()).toEqual([]);
  });
});
