import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { satchel } from '../../src/cli/commands.ts';
import { setupCommand } from '../../src/cli/setup.ts';
import { OPENAI_API_URL } from '../../src/config/stt.ts';
import { Database } from '../../src/store/sqlite.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { FakeSearch } from '../fakes/search-server.ts';
import { TEST_TOKEN } from '../fakes/telegram-server.ts';
import { recordingIo } from '../support/cli-io.ts';
import { TEST_OPENAI_KEY } from '../support/harness.ts';
import { setupPerTest } from '../support/setup-rig.ts';

const OWNER = 4242;
// A hand-added GROQ_API_KEY is checked by the closing checklist: on the fake.
const rig = setupPerTest(({ model }) => ({ GROQ_BASE_URL: model.url }));
const { envFile, flags, home, setup, terminal } = rig;
const models = () => path.join(home(), 'models.yaml');

/** What the owner wrote by hand around what setup wrote the first time. */
const HAND_WRITTEN = (token: string) =>
  [
    '# mine',
    'LLM_PROVIDER=openai',
    `OPENAI_API_KEY=${TEST_OPENAI_KEY}`,
    `OPENAI_BASE_URL=${rig.model.url}/v1`,
    'LLM_MODEL=gpt-4.1-mini',
    `DASHBOARD_TOKEN=${token}`,
    'SATCHEL_TIMEZONE=Europe/Berlin',
    'GROQ_API_KEY=gsk-hand-added',
    '',
  ].join('\n');

describe('satchel setup run again', () => {
  it('keeps what it does not ask about, changes what it is told, says so, and keeps the old file in SATCHEL_HOME/backups/', async () => {
    const token = 'f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7';
    writeFileSync(envFile(), HAND_WRITTEN(token), { mode: 0o644 });
    // --yes is the consent to update; no flag but --model: the key and server come from .env.
    const run = await setup(['--yes', '--model', 'gpt-4o-mini', '--not-free']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(envFile(), 'utf8')).toBe(
      HAND_WRITTEN(token).replace('LLM_MODEL=gpt-4.1-mini', 'LLM_MODEL=gpt-4o-mini'),
    );
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    expect(run.out).toContain('Changes to .env:\n  ~ LLM_MODEL=gpt-4o-mini\n');
    expect(run.out).toContain('kept as they were: DASHBOARD_TOKEN, GROQ_API_KEY, SATCHEL_TIMEZONE');
    // The old file, whole and 0600, in the home's backups: nothing new beside .env.
    const [kept, ...more] = readdirSync(path.join(home(), 'backups'));
    expect(more).toEqual([]);
    expect(kept).toMatch(/^env-\d{8}-\d{6}$/);
    const keptFile = path.join(home(), 'backups', kept!);
    expect(readFileSync(keptFile, 'utf8')).toBe(HAND_WRITTEN(token));
    expect(statSync(keptFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(home(), 'backups')).mode & 0o777).toBe(0o700);
    expect(run.out).toContain(`The old one is kept as ${path.join('data', 'backups', kept!)}.`);
    expect(readdirSync(rig.dir).sort()).toEqual(['.env', 'data']);
    // The key from .env was the one checked.
    expect(rig.model.requests({ kind: 'models' })).not.toHaveLength(0);
  });

  it('updates a .env that is a link where it leads, and the link stays', async () => {
    mkdirSync(path.join(rig.dir, 'secrets'));
    const real = path.join(rig.dir, 'secrets', 'satchel.env');
    writeFileSync(real, HAND_WRITTEN('d'.repeat(40)));
    symlinkSync(real, envFile());
    expect((await setup(['--yes', '--model', 'gpt-4.1', '--not-free'])).code).toBe(0);
    expect(lstatSync(envFile()).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('LLM_MODEL=gpt-4.1\n');
    expect(readdirSync(path.join(rig.dir, 'secrets'))).toEqual(['satchel.env']);
  });

  it('writes DASHBOARD_TOKEN only when .env has none, reusing the one kept in SATCHEL_HOME', async () => {
    mkdirSync(home(), { recursive: true });
    writeFileSync(path.join(home(), 'dashboard-token'), 'kept-token-0123456789abcdef0123456789\n');
    expect((await setup(flags('--not-free'))).code).toBe(0);
    expect(readFileSync(envFile(), 'utf8')).toContain(
      'DASHBOARD_TOKEN=kept-token-0123456789abcdef0123456789\n',
    );
    // Run again: the token stays, and is not among the changes.
    const again = await setup(['--yes', '--model', 'gpt-4.1', '--not-free']);
    expect(again.code).toBe(0);
    expect(again.out).not.toMatch(/[+~] DASHBOARD_TOKEN/);
    expect(readFileSync(envFile(), 'utf8').match(/DASHBOARD_TOKEN=/g)).toHaveLength(1);
  });

  it('in a terminal offers the current values as defaults: Enter keeps each one', async () => {
    writeFileSync(envFile(), HAND_WRITTEN('c'.repeat(40)));
    writeFileSync(
      envFile(),
      `${readFileSync(envFile(), 'utf8')}TELEGRAM_BOT_TOKEN=${TEST_TOKEN}\nALLOWED_USER_IDS=${OWNER},77\n`,
    );
    const t = terminal();
    const running = setupCommand.run([], t.io);
    await t.answer('.env exists. Update it?', '');
    await t.answer('Model provider [number or name; Enter: openai]', '');
    await t.answer(`Enter keeps ${rig.model.url}/v1`, '');
    await t.answer('openai API key for OPENAI_API_KEY (Enter keeps the current one)', '');
    await t.answer('Chat model [number or name; Enter: gpt-4.1-mini]', '');
    // The bot kept, and its owner with it: no wait for a message.
    await t.answer('Enter keeps the current bot', '');
    await t.answer('Speech-to-text [number or name; Enter: groq]', '');
    await t.answer('Search provider [number or name; Enter: none]', '');
    expect(await running).toBe(0);
    expect(t.io.err()).toBe('');
    const text = readFileSync(envFile(), 'utf8');
    expect(text).toContain(`ALLOWED_USER_IDS=${OWNER},77\n`);
    expect(text).toContain('STT_PROVIDER=groq\n');
    expect(t.io.out()).toContain('  + STT_PROVIDER=groq\n');
    expect(t.io.out()).toContain('  kept as they were: ALLOWED_USER_IDS, DASHBOARD_TOKEN');
    expect(rig.tg.calls('getUpdates')).toEqual([]);
    // The checklist names the bot.
    expect(t.io.out()).toContain('✓ Telegram: token accepted, the bot is @satchel_test_bot');
  });

  it('checks the bot at the Bot API address .env names when the environment names none', async () => {
    writeFileSync(
      envFile(),
      `${HAND_WRITTEN('d'.repeat(40))}TELEGRAM_BOT_TOKEN=${TEST_TOKEN}\nALLOWED_USER_IDS=${OWNER}\nTELEGRAM_API_ROOT=${rig.tg.apiRoot}\n`,
    );
    delete rig.env.TELEGRAM_API_ROOT;
    const run = await setup(['--yes', '--not-free']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(rig.tg.calls('getMe').length).toBeGreaterThan(0);
    expect(readFileSync(envFile(), 'utf8')).toContain(`TELEGRAM_API_ROOT=${rig.tg.apiRoot}\n`);
    expect(run.out).toContain('✓ Telegram: token accepted, the bot is @satchel_test_bot');
  });
});

describe('satchel setup on a server of your own', () => {
  beforeEach(() => {
    rig.model.setModels('openai', ['qwen2.5:7b', 'llama3.2:3b', 'nomic-embed-text']);
  });

  it('--yes: a server on this machine counts as free, its chat models go into models.yaml at $0, and a bundled pack answers on one', async () => {
    const run = await setup(flags());
    expect(run.err).toBe('');
    expect(run.out).toContain('is on this machine: its models count as free');
    expect(run.out).toContain(
      `Wrote 2 model(s) at $0 to ${models()}: openai:llama3.2:3b, openai:qwen2.5:7b.`,
    );
    expect(run.out).toContain('All checks passed.');
    expect(run.code).toBe(0);
    expect(readFileSync(envFile(), 'utf8')).toContain('LLM_MODEL=llama3.2:3b\n');
    expect(readFileSync(models(), 'utf8')).toContain(
      'openai:llama3.2:3b: { input: 0, output: 0 }\nopenai:qwen2.5:7b: { input: 0, output: 0 }\n',
    );
    expect(statSync(models()).mode & 0o777).toBe(0o600);

    // The bundled vocab pack (daily_usd capped) answers on it, booked at $0.
    const io = recordingIo(rig.env, rig.dir);
    const chat = satchel(['chat', '--pack', 'vocab'], io);
    (io.stdin as PassThrough).end('hello there\n');
    expect(await chat).toBe(0);
    expect(rig.model.chatRequests()).toHaveLength(1);
    expect(rig.model.chatRequests()[0]!.model).toBe('llama3.2:3b');
    const db = new Database(path.join(home(), 'satchel.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT model, cost_usd, ok FROM usage_events').all()).toEqual([
        { model: 'llama3.2:3b', cost_usd: 0, ok: 1 },
      ]);
    } finally {
      db.close();
    }
  });

  it('--not-free writes no catalog, and the checklist says what to add', async () => {
    const run = await setup(flags('--model', 'qwen2.5:7b', '--not-free'));
    expect(existsSync(models())).toBe(false);
    expect(run.out).toContain('! qwen2.5:7b has no known price');
    expect(run.out).toContain('✗ price:');
    expect(run.code).toBe(1);
  });

  it('in a terminal: asked, yes by default; the list marks unpriced models and says what that means under it', async () => {
    const yes = terminal();
    const running = setupCommand.run(
      ['--provider', 'openai', '--base-url', `${rig.model.url}/v1`],
      yes.io,
    );
    await yes.answer('openai API key', TEST_OPENAI_KEY);
    await yes.answer('is on this machine. Are its models free', '');
    await yes.answer('Chat model', '2');
    await yes.answer('Bot token', '');
    await yes.answer('Speech-to-text', 'off');
    await yes.answer('Search provider', 'none');
    expect(await running).toBe(0);
    expect(yes.io.out()).toMatch(/llama3\.2:3b\s+\$0\.00 in \/ \$0\.00 out per M tokens/);
    expect(readFileSync(envFile(), 'utf8')).toContain('LLM_MODEL=qwen2.5:7b\n');

    rmSync(envFile());
    rmSync(models());
    const no = terminal();
    const refused = setupCommand.run(
      ['--provider', 'openai', '--base-url', `${rig.model.url}/v1`],
      no.io,
    );
    await no.answer('openai API key', TEST_OPENAI_KEY);
    await no.answer('Are its models free', 'n');
    await no.answer('Chat model', '');
    await no.answer('Bot token', '');
    await no.answer('Speech-to-text', 'off');
    await no.answer('Search provider', 'none');
    expect(await refused).toBe(1);
    const out = no.io.out();
    expect(out).toMatch(/llama3\.2:3b\s+no known price \(\*\)/);
    // "(*)" is explained below the list, before the question.
    expect(out).toMatch(
      /\(\*\) no known price: the bundled packs' daily spend caps refuse such a model until its\n\s+price is in .*models\.yaml/,
    );
    expect(out.indexOf('(*) no known price:')).toBeLessThan(out.indexOf('Chat model ['));
  });
});

describe('satchel setup: speech-to-text and web search', () => {
  it('--stt URL: a Whisper server of your own, its model from its list, free on this machine; --search searxng with its URL', async () => {
    rig.model.setModels('openai', ['gpt-4.1-mini', 'whisper-large-v3']);
    const search = await FakeSearch.start();
    try {
      const run = await setup(
        flags('--stt', `${rig.model.url}/v1`, '--search', 'searxng', '--search-url', search.url),
      );
      expect(run.err).toBe('');
      const text = readFileSync(envFile(), 'utf8');
      expect(text).toContain('STT_PROVIDER=openai\n');
      expect(text).toContain(`STT_BASE_URL=${rig.model.url}/v1\n`);
      expect(text).toContain('STT_MODEL=whisper-large-v3\n');
      expect(text).toContain('WEB_SEARCH_PROVIDER=searxng\n');
      expect(text).toContain(`SEARXNG_URL=${search.url}\n`);
      expect(readFileSync(models(), 'utf8')).toContain(
        'openai:whisper-large-v3: { audio_per_hour: 0 }',
      );
      expect(run.out).toContain('✓ web search: searxng: the instance answers');
      // The closing checklist asks the speech server too, and everything passes.
      expect(run.out).toMatch(/voice messages: transcribed by openai whisper-large-v3/);
      expect(run.code).toBe(0);
    } finally {
      await search.stop();
    }
  });

  it('--stt groq writes the Groq key beside an OpenAI chat; --stt openai on another server names OpenAI for speech; --search none drops the provider', async () => {
    const groq = await setup(flags('--not-free', '--stt', 'groq', '--stt-api-key', 'gsk-123'));
    expect(groq.err).toBe('');
    let text = readFileSync(envFile(), 'utf8');
    expect(text).toContain('STT_PROVIDER=groq\n');
    expect(text).toContain('GROQ_API_KEY=gsk-123\n');

    writeFileSync(envFile(), `${text}WEB_SEARCH_PROVIDER=brave\nBRAVE_API_KEY=bk-1\n`);
    // The checklist sees .env as npm start does, the environment's variables winning: there
    // STT_BASE_URL names a fake standing in for OpenAI's API, which takes the key setup wrote.
    const openAiApi = await FakeModel.start();
    rig.onCleanup(() => openAiApi.stop());
    openAiApi.requireKey('openai', 'sk-speech');
    openAiApi.setModels('openai', ['gpt-4o-mini-transcribe', 'whisper-1']);
    rig.env.STT_BASE_URL = `${openAiApi.url}/v1`;
    const openai = await setup([
      '--yes',
      '--not-free',
      '--stt',
      'openai',
      '--stt-api-key',
      'sk-speech',
      '--search',
      'none',
    ]);
    text = readFileSync(envFile(), 'utf8');
    expect(text).toContain('STT_PROVIDER=openai\n');
    expect(text).toContain(`STT_BASE_URL=${OPENAI_API_URL}\n`);
    expect(text).toContain('STT_API_KEY=sk-speech\n');
    expect(text).not.toContain('WEB_SEARCH_PROVIDER');
    expect(text).toContain('BRAVE_API_KEY=bk-1\n');
    expect(openai.out).toContain('  - WEB_SEARCH_PROVIDER (removed)');
    expect(openai.out).toContain('  + STT_API_KEY=(new value, not shown)');
    expect(openai.out).not.toContain('sk-speech');
    expect(openai.out).toContain(
      `✓ voice messages: transcribed by openai gpt-4o-mini-transcribe at ${openAiApi.url}/v1; key accepted`,
    );
    expect(openAiApi.requests().map((r) => [r.kind, r.headers.authorization])).toEqual([
      ['models', 'Bearer sk-speech'],
    ]);
    expect(openai.out).toContain('All checks passed.');
    expect(openai.code).toBe(0);
  });

  it('in a terminal: a Whisper server of your own by its URL (the chat server: its key serves), and SearXNG by its address', async () => {
    rig.model.setModels('openai', ['gpt-4.1-mini', 'whisper-1']);
    const t = terminal();
    const running = setupCommand.run(
      ['--provider', 'openai', '--base-url', `${rig.model.url}/v1`, '--api-key', TEST_OPENAI_KEY],
      t.io,
    );
    await t.answer('Chat model', '');
    await t.answer('Bot token', '');
    await t.answer('Speech-to-text [number or name; Enter: off]', '3');
    await t.answer('Base URL of the server, including /v1', `${rig.model.url}/v1`);
    await t.answer('Search provider', 'searxng');
    await t.answer('SearXNG address', 'http://127.0.0.1:9/');
    await running;
    const text = readFileSync(envFile(), 'utf8');
    expect(text).toContain(`STT_BASE_URL=${rig.model.url}/v1\n`);
    expect(text).toContain('STT_MODEL=whisper-1\n');
    expect(text).not.toContain('STT_API_KEY');
    expect(text).toContain('SEARXNG_URL=http://127.0.0.1:9/\n');
    expect(t.io.out()).not.toContain("The server's API key");
    expect(readFileSync(models(), 'utf8')).toContain('openai:whisper-1: { audio_per_hour: 0 }');
  });

  it('refuses a search provider without its key, and an --stt that is none of them, writing nothing', async () => {
    const brave = await setup(flags('--not-free', '--search', 'brave'));
    expect(brave.code).toBe(1);
    expect(brave.err).toContain('web search: brave needs BRAVE_API_KEY');
    expect(brave.err).toContain('--search-key');
    const odd = await setup(flags('--not-free', '--stt', 'whisper'));
    expect(odd.code).toBe(1);
    expect(odd.err).toContain('"whisper" is none of groq, openai, off, or an http(s) URL');
    expect(existsSync(envFile())).toBe(false);
  });
});
