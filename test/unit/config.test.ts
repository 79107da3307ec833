import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { envSchema } from '../../src/config/schema.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { configure, edgesOf, edgeVariables } from '../../src/edges.ts';
import { DEFAULT_TELEGRAM_API_ROOT, telegramSettings } from '../../src/telegram/settings.ts';

const base = { TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', OPENAI_API_KEY: 'sk-test' };

function errorOf(env: Record<string, string>): string {
  try {
    // The core's variables and each edge's own, as the start reads them.
    configure(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = parseConfig(base);
    expect(telegramSettings(config.env)).toEqual({
      token: '123456:ABC-def_ghi',
      apiRoot: DEFAULT_TELEGRAM_API_ROOT,
      webhook: undefined,
      localFiles: false,
      allowedUserIds: [],
      owner: undefined,
      pairing: true,
    });
    expect(config.voice).toEqual({
      reply: 'off',
      tts: { provider: 'openai', model: 'gpt-4o-mini-tts' },
      voice: 'alloy',
    });
    expect(config.queueMode).toBe('followup');
    expect(config.jobIdleDays).toBe(14);
    expect(config.llm).toMatchObject({ provider: 'openai', model: undefined, fallback: undefined });
    // OpenAI's own API with its key: it transcribes too (SPEC §1, STT_PROVIDER).
    expect(config.stt).toEqual({
      provider: 'openai',
      model: 'gpt-4o-mini-transcribe',
      apiKey: 'sk-test',
    });
    expect(config.batchWindowMs).toBe(800);
    expect(config.quota).toEqual({ dailyTokens: 2_000_000, sessionTokens: 500_000, dailyUsd: 0 });
    expect(config.dashboard.port).toBe(8787);
    expect(config.dashboard.token).toBeUndefined();
    expect(config.logLevel).toBe('info');
    expect(config.turnTimeoutMs).toBe(300_000);
    expect(config.maxJobs).toBe(50);
    expect(config.home.endsWith('data')).toBe(true);
    expect(Object.isFrozen(config.llm)).toBe(true);
  });

  it('parses lists, numbers and the fallback', () => {
    const config = parseConfig({
      ...base,
      ALLOWED_USER_IDS: ' 11, 22 ,33',
      SATCHEL_PACKS: 'a, b',
      LLM_FALLBACK: 'groq:llama-3.3-70b-versatile',
      GROQ_API_KEY: 'gsk',
      BATCH_WINDOW_MS: '0',
      QUOTA_DAILY_USD: '1.5',
      TELEGRAM_API_ROOT: 'http://127.0.0.1:9999/',
    });
    const telegram = telegramSettings(config.env);
    // Telegram's ids stay as its edge reads them: strings the core never parses.
    expect(telegram).toMatchObject({ allowedUserIds: ['11', '22', '33'], owner: '11' });
    expect(config.packDirs.map((d) => d.split(/[\\/]/).at(-1))).toEqual([
      'a',
      'b',
      'installed-packs',
    ]);
    expect(config.llm.fallback).toEqual({ provider: 'groq', model: 'llama-3.3-70b-versatile' });
    expect(config.batchWindowMs).toBe(0);
    expect(config.quota.dailyUsd).toBe(1.5);
    expect(telegram.apiRoot).toBe('http://127.0.0.1:9999');
  });

  it.each([
    [{ TELEGRAM_BOT_TOKEN: 'oops' }, 'TELEGRAM_BOT_TOKEN looks malformed'],
    [{ ALLOWED_USER_IDS: '12,@bob' }, 'ALLOWED_USER_IDS has "@bob"'],
    [{ LLM_PROVIDER: 'claude' }, 'LLM_PROVIDER'],
    [{ BATCH_WINDOW_MS: '-5' }, 'BATCH_WINDOW_MS must be a whole number'],
    [{ SATCHEL_TIMEZONE: 'Mars/Olympus' }, 'SATCHEL_TIMEZONE must be an IANA zone'],
    [{ OPENAI_BASE_URL: 'localhost:8080' }, 'OPENAI_BASE_URL must be an http(s) URL'],
    [{ LLM_FALLBACK: 'gpt-4o' }, 'LLM_FALLBACK must look like "provider:model"'],
    [{ TURN_TIMEOUT_MS: '0' }, 'TURN_TIMEOUT_MS must be a whole number ≥ 1'],
    [{ TURN_TIMEOUT_MS: '5 min' }, 'TURN_TIMEOUT_MS must be a whole number ≥ 1'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MAX_JOBS: '0' }, 'MAX_JOBS must be a whole number ≥ 1'],
    [{ MAX_JOBS: '2.5' }, 'MAX_JOBS must be a whole number ≥ 1'],
    [{ MAX_JOBS: 'lots' }, 'MAX_JOBS must be a whole number ≥ 1'],
    [{ UNKNOWN_PRICE: 'maybe' }, 'UNKNOWN_PRICE must be "refuse" or "allow"'],
  ])('names the variable in error %#', (override, expected) => {
    const env = { ...base, ...override } as Record<string, string>;
    expect(errorOf(env)).toContain(expected);
  });

  it('runs without TELEGRAM_BOT_TOKEN (the web chat alone), and still reads the allowlist', () => {
    const web = telegramSettings({ OPENAI_API_KEY: 'sk-test', ALLOWED_USER_IDS: '42, 7' });
    expect(web.token).toBeUndefined();
    expect(web).toMatchObject({ allowedUserIds: ['42', '7'], owner: '42', pairing: true });
    expect(telegramSettings({ ...base, TELEGRAM_BOT_TOKEN: '  ' }).token).toBeUndefined();
    // A webhook needs a bot.
    expect(
      errorOf({ OPENAI_API_KEY: 'sk-test', TELEGRAM_WEBHOOK_URL: 'https://x.example/t' }),
    ).toContain('TELEGRAM_BOT_TOKEN is required with TELEGRAM_WEBHOOK_URL');
  });

  it("requires the chosen provider's key unless a compatible base URL is set", () => {
    expect(errorOf({ TELEGRAM_BOT_TOKEN: base.TELEGRAM_BOT_TOKEN })).toContain(
      'OPENAI_API_KEY is required when LLM_PROVIDER=openai',
    );
    expect(errorOf({ ...base, LLM_PROVIDER: 'groq' })).toContain('GROQ_API_KEY');
    const local = parseConfig({
      TELEGRAM_BOT_TOKEN: base.TELEGRAM_BOT_TOKEN,
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
    });
    expect(local.providers.openai.baseUrl).toBe('http://localhost:11434/v1');
  });

  it('reports every problem in one round: bad values, missing keys and the webhook secret', () => {
    const message = errorOf({
      TELEGRAM_BOT_TOKEN: base.TELEGRAM_BOT_TOKEN,
      SATCHEL_TIMEZONE: 'Mars/Olympus',
      LLM_FALLBACK: 'groq:llama-3.3-70b-versatile',
      TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/hook',
    });
    const lines = message.split('\n').slice(1);
    expect(lines).toHaveLength(4);
    expect(lines).toEqual([
      expect.stringContaining('SATCHEL_TIMEZONE'),
      expect.stringContaining('OPENAI_API_KEY is required when LLM_PROVIDER=openai'),
      expect.stringContaining('GROQ_API_KEY is required when LLM_FALLBACK=groq:'),
      expect.stringContaining('TELEGRAM_WEBHOOK_SECRET is required with TELEGRAM_WEBHOOK_URL'),
    ]);
  });

  it("requires the fallback provider's key too, at start-up", () => {
    const fallback = { ...base, LLM_FALLBACK: 'groq:llama-3.3-70b-versatile' };
    expect(errorOf(fallback)).toContain(
      '- GROQ_API_KEY is required when LLM_FALLBACK=groq:llama-3.3-70b-versatile',
    );
    expect(errorOf({ ...base, LLM_FALLBACK: 'gemini:gemini-2.5-flash' })).toContain(
      'GEMINI_API_KEY is required when LLM_FALLBACK',
    );
    const proxied = parseConfig({ ...fallback, GROQ_BASE_URL: 'http://127.0.0.1:9/' });
    expect(proxied.llm.fallback).toEqual({ provider: 'groq', model: 'llama-3.3-70b-versatile' });
    expect(parseConfig({ ...base, LLM_FALLBACK: 'openai:gpt-4.1' }).llm.fallback?.model).toBe(
      'gpt-4.1',
    );
  });

  it('reads TURN_TIMEOUT_MS', () => {
    expect(parseConfig({ ...base, TURN_TIMEOUT_MS: '90000' }).turnTimeoutMs).toBe(90_000);
  });

  it('reads TOOL_APPROVAL and APPROVAL_TIMEOUT_MS (default tainted and 5 minutes)', () => {
    expect(parseConfig(base).trust).toEqual({ approval: 'tainted', approvalTimeoutMs: 300_000 });
    const set = parseConfig({ ...base, TOOL_APPROVAL: ' off ', APPROVAL_TIMEOUT_MS: '60000' });
    expect(set.trust).toEqual({ approval: 'off', approvalTimeoutMs: 60_000 });
    expect(errorOf({ ...base, TOOL_APPROVAL: 'never' })).toContain(
      'TOOL_APPROVAL must be "tainted", "always" or "off"',
    );
    expect(errorOf({ ...base, APPROVAL_TIMEOUT_MS: '0' })).toContain(
      'APPROVAL_TIMEOUT_MS must be a whole number ≥ 1',
    );
  });

  it('reads MAX_JOBS', () => {
    expect(parseConfig({ ...base, MAX_JOBS: ' 3 ' }).maxJobs).toBe(3);
  });

  it('reads the web tools: allowed hosts, the text cap, the search provider and what it needs', () => {
    const config = parseConfig({
      ...base,
      WEB_FETCH_ALLOW_HOSTS: ' Wiki.LAN:8080 , nas.local ',
      WEB_FETCH_MAX_CHARS: '5000',
      WEB_SEARCH_PROVIDER: 'tavily',
      TAVILY_API_KEY: 'tvly-key',
    });
    expect(config.web).toEqual({
      allowHosts: ['wiki.lan:8080', 'nas.local'],
      maxChars: 5000,
      search: { provider: 'tavily', tavilyApiKey: 'tvly-key' },
    });
    expect(parseConfig(base).web).toEqual({ allowHosts: [], maxChars: 20_000, search: undefined });
    expect(errorOf({ ...base, WEB_SEARCH_PROVIDER: 'brave' })).toContain(
      'BRAVE_API_KEY is required when WEB_SEARCH_PROVIDER=brave',
    );
    expect(errorOf({ ...base, WEB_SEARCH_PROVIDER: 'bing' })).toContain(
      'WEB_SEARCH_PROVIDER must be "brave", "tavily" or "searxng"',
    );
    expect(errorOf({ ...base, SEARXNG_URL: 'searx.lan' })).toContain(
      'SEARXNG_URL must be an http(s) URL',
    );
  });
});

describe('.env.example', () => {
  const example = parseEnv(readFileSync(new URL('../../.env.example', import.meta.url), 'utf8'));

  it('lists every variable satchel reads', () => {
    expect(Object.keys(example).sort()).toEqual(
      [...Object.keys(envSchema.shape), ...edgeVariables()].sort(),
    );
  });

  it('is a valid configuration once a model key is filled in', () => {
    expect(errorOf(example as Record<string, string>)).toContain('OPENAI_API_KEY is required');
    const config = parseConfig({ ...example, ...base });
    expect(config.batchWindowMs).toBe(800);
    expect(edgesOf(config).map((edge) => edge.platform)).toEqual(['tg', 'web']);
    expect(telegramSettings({ ...example }).token).toBeUndefined();
  });

  it("reads no edge's variable in the core: satchel chat needs no token, and no telegram part", () => {
    const chat = parseConfig({
      OPENAI_API_KEY: 'sk-test',
      TELEGRAM_BOT_TOKEN: 'not a token',
      ALLOWED_USER_IDS: 'x',
    });
    expect(chat).not.toHaveProperty('telegram');
    expect(chat).not.toHaveProperty('access');
    expect(chat.llm.provider).toBe('openai');
    expect(Object.isFrozen(chat)).toBe(true);
    expect(() => parseConfig({})).toThrow(/OPENAI_API_KEY is required/);
    // The bot's edges read theirs, and refuse a malformed token and allowlist in one round.
    expect(
      errorOf({ OPENAI_API_KEY: 'sk-test', TELEGRAM_BOT_TOKEN: 'x', ALLOWED_USER_IDS: '1,x' }),
    ).toMatch(
      /^Invalid configuration:\n- TELEGRAM_BOT_TOKEN looks malformed.*\n- ALLOWED_USER_IDS has "x"/,
    );
  });
});
