import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/cli/doctor.ts';
import type { CliIo } from '../../src/core/cli-io.ts';
import { formatChecks } from '../../src/ops/check.ts';
import { runDoctor } from '../../src/ops/doctor.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { Database } from '../../src/store/sqlite.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { FakeSearch } from '../fakes/search-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';
import { ALIAS_BOMB } from '../support/yaml-bomb.ts';

const GROQ_KEY = 'gsk-test-groq-key-0123456789';
/** The packs satchel ships, each with a `daily_usd` cap. */
const BUNDLED_PACKS = fileURLToPath(new URL('../../packs', import.meta.url));
let tg: FakeTelegram;
let model: FakeModel;
let home: string;
let env: Record<string, string>;
const closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  tg = await FakeTelegram.start();
  model = await FakeModel.start();
  model.requireKey('openai', TEST_OPENAI_KEY);
  model.requireKey('groq', GROQ_KEY);
  home = mkdtempSync(path.join(tmpdir(), 'satchel-doctor-'));
  env = {
    TELEGRAM_BOT_TOKEN: TEST_TOKEN,
    TELEGRAM_API_ROOT: tg.apiRoot,
    ALLOWED_USER_IDS: String(ALLOWED_USER),
    SATCHEL_HOME: path.join(home, 'data'),
    SATCHEL_PACKS: fixturePacks(['alpha', 'beta']),
    OPENAI_API_KEY: TEST_OPENAI_KEY,
    OPENAI_BASE_URL: `${model.url}/v1`,
    LLM_MODEL: 'gpt-4.1-mini',
    GROQ_API_KEY: GROQ_KEY,
    GROQ_BASE_URL: model.url,
    DASHBOARD_PORT: '0',
  };
  // A database as a first start leaves it.
  openCoreStore(env.SATCHEL_HOME!).close();
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await tg.stop();
  await model.stop();
  rmSync(home, { recursive: true, force: true });
});

/** Runs `satchel doctor` in-process; what it printed and its exit code. */
async function doctor(overrides: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { ...env, ...overrides },
    cwd: home,
  };
  const code = await doctorCommand.run([], io);
  return { code, out, lines: out.split('\n') };
}

/** The line that starts with `mark` and contains `text`, and the fix printed under it. */
function item(lines: string[], mark: '✓' | '✗' | '!', text: string) {
  const index = lines.findIndex((l) => l.startsWith(`${mark} `) && l.includes(text));
  expect(index, `${mark} ... ${text} in:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(index + 1);
  const end = rest.findIndex((l) => !l.startsWith('    '));
  const below = rest.slice(0, end === -1 ? undefined : end);
  return { line: lines[index]!, fix: below.find((l) => l.startsWith('    fix: ')) ?? '' };
}

/** Another web server on a free port of 127.0.0.1, answering with `handler`; closed after the test. */
async function holdPort(handler: RequestListener): Promise<number> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as { port: number }).port;
}

describe('satchel doctor against the fakes', () => {
  it('passes everything on a working setup and exits 0', async () => {
    tg.setReadsAllGroupMessages(true);
    const { code, out, lines } = await doctor();
    expect(out).not.toMatch(/^✗/m);
    expect(out).not.toContain('privacy mode');
    item(lines, '✓', 'configuration: valid');
    item(lines, '✓', `allowlist: 1 user (${ALLOWED_USER})`);
    item(lines, '✓', 'Telegram: token accepted, the bot is @satchel_test_bot');
    item(lines, '✓', 'openai: key accepted; gpt-4.1-mini (chat)');
    item(lines, '✓', 'groq: key accepted; whisper-large-v3-turbo (stt)');
    item(lines, '✓', 'packs: 2 valid (alpha 1.0.0, beta ');
    expect(item(lines, '✓', 'database: migrations applied').line).toMatch(/, WAL, .*integrity ok$/);
    item(lines, '✓', 'dashboard: DASHBOARD_PORT=0');
    expect(out).toContain('All checks passed.');
    expect(code).toBe(0);
    // Nothing was spent or sent: a model list per provider, getMe, and nothing else.
    expect(model.chatRequests()).toHaveLength(0);
    expect(model.requests().map((r) => `${r.provider} ${r.kind}`)).toEqual(
      expect.arrayContaining(['openai models', 'groq models']),
    );
    expect(tg.calls().map((c) => c.method)).toEqual(['getMe', 'getWebhookInfo']);
    expect(tg.calls('getUpdates')).toHaveLength(0);
  });

  it('warns when privacy mode hides group messages, and says how to turn it off', async () => {
    const { code, lines } = await doctor();
    const { line, fix } = item(lines, '!', 'Telegram: privacy mode is on');
    expect(line).toContain('plain messages in pack topics never arrive');
    expect(fix).toContain('Bot Settings → Group Privacy → Turn off');
    expect(code).toBe(0);

    const all = await doctor({ GROUP_REPLY: 'all' });
    expect(item(all.lines, '!', 'privacy mode is on').line).toContain('GROUP_REPLY=all');
  });

  it('reports a token Telegram refuses, with the fix, and exits 1', async () => {
    const { code, lines } = await doctor({ TELEGRAM_BOT_TOKEN: '123456:WRONG-token' });
    const { line, fix } = item(lines, '✗', 'Telegram refused the token (401');
    expect(line).not.toContain('WRONG-token');
    expect(fix).toContain('TELEGRAM_BOT_TOKEN');
    expect(fix).toContain('@BotFather');
    item(lines, '✓', 'openai: key accepted');
    expect(code).toBe(1);
  });

  it('says Telegram is not configured without a token, calls no Bot API, and exits 0', async () => {
    const { code, out, lines } = await doctor({ TELEGRAM_BOT_TOKEN: '', ALLOWED_USER_IDS: '' });
    const { fix } = item(lines, '!', 'Telegram: not configured');
    expect(fix).toContain('TELEGRAM_BOT_TOKEN');
    item(lines, '✓', 'allowlist: empty (not needed for the web chat)');
    item(lines, '✓', 'openai: key accepted');
    expect(out).not.toMatch(/^✗/m);
    expect(code).toBe(0);
    expect(tg.calls()).toEqual([]);
  });

  it('reports a webhook left set, which would stop long polling', async () => {
    await fetch(`${tg.apiRoot}/bot${TEST_TOKEN}/setWebhook?url=https://old.example/hook`);
    const { code, lines } = await doctor();
    const { fix } = item(
      lines,
      '✗',
      'Telegram has a webhook set for it (https://old.example/hook)',
    );
    expect(fix).toContain('deleteWebhook');
    const webhook = await doctor({
      TELEGRAM_WEBHOOK_URL: 'https://bot.example/hook',
      TELEGRAM_WEBHOOK_SECRET: 'abc123',
    });
    item(webhook.lines, '✓', 'webhook mode (https://bot.example/hook)');
    expect(code).toBe(1);
  });

  it('reports a model key the provider rejects, naming the variable, and exits 1', async () => {
    const { code, lines, out } = await doctor({ GROQ_API_KEY: 'gsk-revoked-key-0000' });
    const { line, fix } = item(lines, '✗', 'groq: the API key was refused (401)');
    expect(line).toBeDefined();
    expect(fix).toContain('Check GROQ_API_KEY');
    expect(out).not.toContain('gsk-revoked-key-0000');
    item(lines, '✓', 'openai: key accepted');
    expect(code).toBe(1);
  });

  it('reports a provider host that cannot be reached, with the fix, and exits 1', async () => {
    const dead = await FakeModel.start();
    await dead.stop();
    const { code, lines } = await doctor({ OPENAI_BASE_URL: `${dead.url}/v1` });
    const { fix } = item(lines, '✗', 'openai: cannot reach it');
    expect(fix).toContain('OPENAI_BASE_URL');
    expect(fix).toContain('network');
    expect(code).toBe(1);
  });

  it('reports a model the provider does not offer', async () => {
    model.setModels('openai', ['gpt-4.1', 'gpt-4o-mini']);
    const { code, lines } = await doctor();
    const { fix } = item(lines, '✗', 'openai: key accepted, but it does not offer gpt-4.1-mini');
    expect(fix).toBe(
      '    fix: Set LLM_MODEL to a model openai lists (it lists gpt-4.1, gpt-4o-mini).',
    );
    expect(code).toBe(1);
  });

  it('warns, without failing, about a model with no known price', async () => {
    model.setModels('openai', ['my-local-llama', 'gpt-4.1-mini']);
    const { code, lines } = await doctor({ LLM_MODEL: 'my-local-llama' });
    const { line, fix } = item(lines, '!', 'no known price for openai:my-local-llama (chat)');
    const file = path.join(home, 'data', 'models.yaml');
    expect(line).toContain('under a USD cap');
    expect(fix).toContain(`Give it input and output prices in ${file}`);
    expect(code).toBe(0);
  });

  it('fails on a model with no price under the bundled packs’ USD caps, printing the lines to add', async () => {
    model.setModels('openai', ['my-local-llama', 'gpt-4.1-mini']);
    const file = path.join(home, 'data', 'models.yaml');
    const { code, out, lines } = await doctor({
      LLM_MODEL: 'my-local-llama',
      SATCHEL_PACKS: BUNDLED_PACKS,
    });
    const { fix } = item(lines, '✗', 'no known price for openai:my-local-llama (chat)');
    expect(lines).toContain(
      "    openai:my-local-llama: {input: 0.0, cached_input: 0.0, output: 0.0}   # fill in the provider's prices",
    );
    expect(fix).toContain(`Add these lines to ${file}`);
    expect(out).not.toContain('All checks passed.');
    expect(code).toBe(1);

    // QUOTA_DAILY_USD is a USD cap too, with packs that set none.
    const capped = await doctor({ LLM_MODEL: 'my-local-llama', QUOTA_DAILY_USD: '2' });
    item(capped.lines, '✗', 'no known price for openai:my-local-llama (chat)');
    expect(capped.code).toBe(1);

    // UNKNOWN_PRICE=allow lets the calls go ahead: worth knowing, not a failure.
    const allowed = await doctor({
      LLM_MODEL: 'my-local-llama',
      SATCHEL_PACKS: BUNDLED_PACKS,
      UNKNOWN_PRICE: 'allow',
    });
    item(allowed.lines, '!', 'no known price for openai:my-local-llama (chat)');
    expect(allowed.code).toBe(0);
  });

  it('passes gpt-4o-mini under the bundled packs’ caps: the bundled catalog prices it', async () => {
    model.setModels('openai', ['gpt-4o-mini']);
    const { code, out, lines } = await doctor({
      LLM_MODEL: 'gpt-4o-mini',
      SATCHEL_PACKS: BUNDLED_PACKS,
    });
    item(lines, '✓', 'openai: key accepted; gpt-4o-mini (chat)');
    expect(out).not.toContain('no known price');
    expect(code).toBe(0);
  });

  it("takes the owner's prices from SATCHEL_MODELS, and fails on an invalid catalog", async () => {
    model.setModels('openai', ['my-local-llama', 'gpt-4.1-mini']);
    const file = path.join(home, 'models.yaml');
    writeFileSync(file, 'openai:my-local-llama: { input: 0.1, output: 0.2 }\n');
    const priced = await doctor({ LLM_MODEL: 'my-local-llama', SATCHEL_MODELS: file });
    item(priced.lines, '✓', `model catalog: 1 entry from ${file}`);
    expect(priced.lines.some((l) => l.includes('no known price'))).toBe(false);
    expect(priced.code).toBe(0);

    writeFileSync(file, 'openai:my-local-llama: { input: 0.1, output: cheap }\n');
    const broken = await doctor({ LLM_MODEL: 'my-local-llama', SATCHEL_MODELS: file });
    item(broken.lines, '✗', `model catalog: invalid (${file})`);
    expect(broken.lines).toContain(
      `    - ${file} line 1: openai:my-local-llama.output must be a number (USD)`,
    );
    expect(broken.code).toBe(1);
  });

  it('shows an alias bomb in models.yaml or in a pack.yml as a ✗ line naming the file', async () => {
    const bomb = 'expands its aliases (*name) more than 100 times; satchel expands at most 100';
    const file = path.join(home, 'models.yaml');
    writeFileSync(file, ALIAS_BOMB);
    const packs = path.join(home, 'packs');
    cpSync(path.join(fixturePacks(['alpha']), 'alpha'), path.join(packs, 'alpha'), {
      recursive: true,
    });
    const manifest = path.join(packs, 'alpha', 'pack.yml');
    writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}\n${ALIAS_BOMB}`);
    const { code, lines } = await doctor({ SATCHEL_MODELS: file, SATCHEL_PACKS: packs });
    item(lines, '✗', `model catalog: invalid (${file})`);
    expect(lines).toContain(`    - ${file}: ${bomb}`);
    item(lines, '✗', `pack ${manifest} is invalid (it would be skipped)`);
    expect(lines).toContain(`    \`${manifest}\`: (yaml) — ${bomb}`);
    expect(code).toBe(1);
  });

  it('stops after the configuration when it is invalid, naming the variable', async () => {
    const { code, lines } = await doctor({ DASHBOARD_PORT: 'eighty' });
    item(lines, '✗', 'configuration: invalid');
    expect(lines.some((l) => l.includes('DASHBOARD_PORT must be a whole number'))).toBe(true);
    expect(lines.some((l) => l.includes('Telegram'))).toBe(false);
    expect(code).toBe(1);
  });

  it('reads .env from the working directory; the environment wins', async () => {
    writeFileSync(path.join(home, '.env'), 'ALLOWED_USER_IDS=\nLLM_MODEL=gpt-4o-mini\n');
    const { ALLOWED_USER_IDS: _, LLM_MODEL: __, ...rest } = env;
    env = { ...rest, LLM_MODEL: 'gpt-4.1' };
    const { code, lines } = await doctor();
    item(lines, '✗', 'allowlist: ALLOWED_USER_IDS is empty');
    item(lines, '✓', 'openai: key accepted; gpt-4.1 (chat)');
    expect(code).toBe(1);
  });

  it('warns about unknown names in .env with the nearest known one, and lines that are not NAME=value', async () => {
    writeFileSync(
      path.join(home, '.env'),
      `# keys\nOPENAI_APIKEY=${TEST_OPENAI_KEY}\nOPENAI_API_KEY ${TEST_OPENAI_KEY}\nSATCHEL_PACK_ALPHA_TOKEN=x\n`,
    );
    const { OPENAI_API_KEY: _, ...rest } = env;
    env = rest;
    const { code, lines, out } = await doctor();
    const unknown = item(lines, '!', '.env line 2: OPENAI_APIKEY is not a variable satchel reads');
    expect(unknown.line).toContain('(did you mean `OPENAI_API_KEY`?)');
    const shape = item(lines, '!', '.env line 3: not NAME=value');
    expect(shape.line).toContain('write OPENAI_API_KEY=<value>');
    expect(out).not.toContain('SATCHEL_PACK_ALPHA_TOKEN');
    expect(out).not.toContain(TEST_OPENAI_KEY);
    // Warnings only: the exit code is the other checks' (the key is really missing).
    expect(code).toBe(1);
  });

  it('reports an invalid pack with its file and field', async () => {
    const packs = fixturePacks(['alpha', 'beta']);
    writeFileSync(path.join(packs, 'beta', 'pack.yml'), 'name: Beta!\n');
    const { code, lines } = await doctor({ SATCHEL_PACKS: packs });
    const { fix } = item(lines, '✗', `pack ${path.join(packs, 'beta', 'pack.yml')} is invalid`);
    expect(fix).toContain('`npx satchel pack validate <dir>`');
    item(lines, '✓', 'packs: 1 valid (alpha 1.0.0)');
    expect(code).toBe(1);
  });

  it('names the pack that has a clashing name and how to keep one, and counts only packs that load', async () => {
    const packs = fixturePacks(['alpha', 'beta']);
    const installed = path.join(env.SATCHEL_HOME!, 'installed-packs', 'alpha');
    cpSync(path.join(packs, 'alpha'), installed, { recursive: true });
    const { code, lines } = await doctor({ SATCHEL_PACKS: packs });
    const { line, fix } = item(lines, '✗', `pack ${path.join(installed, 'pack.yml')} is skipped`);
    expect(line).toContain(`the pack in ${path.join(packs, 'alpha')} (alpha) already has its name`);
    expect(fix).toContain('npx satchel pack remove alpha');
    expect(fix).toContain('rename one');
    expect(fix).not.toContain('Correct each field');
    item(lines, '✓', 'packs: 2 valid (alpha 1.0.0, beta ');
    expect(code).toBe(1);
  });

  it('does not count a pack skipped for a missing required setting as valid', async () => {
    const settings =
      '\nsettings:\n  - name: api_token\n    description: A token.\n    required: true\n';
    const withSettings = fixturePacks(['alpha'], settings);
    const { code, lines } = await doctor({
      SATCHEL_PACKS: [withSettings, fixturePacks(['beta'])].join(','),
    });
    item(lines, '✗', 'pack alpha misses required settings');
    const valid = item(lines, '✓', 'packs: 1 valid').line;
    expect(valid).not.toContain('alpha');
    expect(code).toBe(1);
  });

  it('counts the homes, and names one whose database the pack cannot bring up to date', async () => {
    const packs = fixturePacks(['alpha', 'beta']);
    mkdirSync(path.join(packs, 'alpha', 'migrations'));
    writeFileSync(
      path.join(packs, 'alpha', 'migrations', '0001_notes.sql'),
      'ALTER TABLE plants ADD COLUMN note TEXT;\n',
    );
    const alpha = path.join(env.SATCHEL_HOME!, 'packs', 'alpha');
    for (const folder of ['people/222', 'people/333', 'groups/tg--100600'])
      mkdirSync(path.join(alpha, folder), { recursive: true });
    mkdirSync(path.join(env.SATCHEL_HOME!, 'packs', 'beta', 'people', '222'), { recursive: true });
    // Person 222's database has the column already: the migration fails there.
    const broken = path.join(alpha, 'people', '222', 'pack.db');
    const db = new Database(broken);
    db.exec('CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT)');
    db.close();
    const before = readFileSync(broken);

    const { code, lines } = await doctor({ SATCHEL_PACKS: packs });
    item(lines, '✓', "homes: the owner's in each pack, 3 of people and 1 of groups");
    const refused = item(
      lines,
      '✗',
      'pack alpha: the home of person 222 (person:222) cannot be brought up to date',
    );
    expect(refused.fix).toContain('/people purge');
    expect(lines.join('\n')).toContain('duplicate column name: note');
    expect(lines.filter((l) => l.includes('cannot be brought up to date'))).toHaveLength(1);
    expect(code).toBe(1);
    // Tried on a copy: the home's database is as it was.
    expect(readFileSync(broken).equals(before)).toBe(true);
  });

  it('reports a dashboard port another program holds', async () => {
    // Another program's web server: it answers, but not as satchel.
    const port = await holdPort((_req, res) => res.writeHead(404).end('not here'));
    const { code, lines } = await doctor({ DASHBOARD_PORT: String(port) });
    const { fix } = item(lines, '✗', `dashboard: port ${port} on 127.0.0.1 is not available`);
    expect(fix).toContain('DASHBOARD_PORT');
    expect(code).toBe(1);
  });

  it('takes a dashboard port held by a running satchel (its /healthz answers) as fine', async () => {
    const port = await holdPort((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"polling":true}'),
    );
    const { code, lines } = await doctor({ DASHBOARD_PORT: String(port) });
    item(lines, '✓', `dashboard: port ${port} is in use by a running satchel`);
    expect(code).toBe(0);
  });

  it.each([
    ['20.11.1', '✗'],
    ['21.7.0', '✗'],
    ['22.11.0', '✗'],
    ['20.19.0', '!'],
    ['22.12.0', '✓'],
    ['24.11.1', '✓'],
  ] as const)('checks Node %s against engines: %s', async (version, mark) => {
    const [node] = await runDoctor({ env: {}, nodeVersion: version });
    expect(formatChecks([node!]).startsWith(`${mark} Node ${version}`)).toBe(true);
  });

  it('names the SQLite driver, and warns when this Node should have the Node-API build', async () => {
    const [, loaded] = await runDoctor({ env: {} });
    expect(formatChecks([loaded!])).toMatch(/^✓ SQLite driver: better-sqlite3 \d+\.\d+\.\d+/);
    const missing = { name: 'better-sqlite3', version: '12.11.1', path: 'x', napiMissing: true };
    const [, driver] = await runDoctor({ env: {}, sqliteDriver: missing });
    const text = formatChecks([driver!]);
    expect(text).toContain('! SQLite driver: better-sqlite3 12.11.1, but this Node should use');
    expect(text).toContain('fix: Run `npm install` (without --omit=optional');
  });

  it('says a database not created yet will be made at the first start', async () => {
    const { code, lines } = await doctor({ SATCHEL_HOME: path.join(home, 'fresh') });
    item(lines, '✓', 'database: not created yet');
    expect(code).toBe(0);
  });

  it('checks the web search key with a free request where the provider has one, else says it was not checked', async () => {
    const api = await FakeSearch.start();
    closers.push(() => api.stop());
    const search = { WEB_SEARCH_BASE_URL: api.url };
    const tavily = await doctor({
      ...search,
      WEB_SEARCH_PROVIDER: 'tavily',
      TAVILY_API_KEY: api.key,
    });
    item(tavily.lines, '✓', 'web search: tavily: key accepted');
    const refused = await doctor({
      ...search,
      WEB_SEARCH_PROVIDER: 'tavily',
      TAVILY_API_KEY: 'wrong',
    });
    const line = item(
      refused.lines,
      '✗',
      'web search: tavily: tavily refused the search key (401)',
    );
    expect(line.fix).toContain('TAVILY_API_KEY');
    expect(refused.code).toBe(1);
    const searxng = await doctor({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: api.url });
    item(searxng.lines, '✓', 'web search: searxng: the instance answers');
    const brave = await doctor({ ...search, WEB_SEARCH_PROVIDER: 'brave', BRAVE_API_KEY: api.key });
    item(
      brave.lines,
      '✓',
      'web search: brave: key set, not checked (every brave request is a paid search)',
    );
    // Only the free checks went out: /usage twice, /config once, no search.
    expect(api.requests.map((r) => r.path)).toEqual(['/usage', '/usage', '/config']);
    expect(api.searches()).toHaveLength(0);
  });
});
