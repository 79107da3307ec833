import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { envSchema } from './schema.ts';

export type Provider = 'openai' | 'gemini' | 'groq';

export interface ProviderKeys {
  openai: { apiKey?: string; baseUrl?: string };
  groq: { apiKey?: string; baseUrl?: string };
  gemini: { apiKey?: string; baseUrl?: string };
}

/** satchel's whole configuration, read once from the environment and frozen. */
export interface Config {
  telegram: { token: string; apiRoot: string; allowedUserIds: readonly number[] };
  home: string;
  packDirs: readonly string[];
  llm: {
    provider: Provider;
    model: string | undefined;
    fallback: { provider: Provider; model: string } | undefined;
    timeoutMs: number;
  };
  providers: ProviderKeys;
  /** How long one turn may take, model calls and tools together. */
  turnTimeoutMs: number;
  sttModel: string;
  visionModel: string | undefined;
  batchWindowMs: number;
  quota: { dailyTokens: number; sessionTokens: number; dailyUsd: number };
  timezone: string;
  dashboard: { port: number; token: string };
  logLevel: string;
}

/**
 * Parses and validates `env`. Throws a ConfigError whose message names every bad variable
 * and how to fix it. Pure: reads nothing but its argument.
 */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'config');
      return issue.message.includes(name) ? `- ${issue.message}` : `- ${name}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = result.data;
  requireProviderKey(e.LLM_PROVIDER, e, 'LLM_PROVIDER');
  const [fallbackProvider, ...fallbackModel] = e.LLM_FALLBACK?.split(':') ?? [];
  if (fallbackProvider) requireProviderKey(fallbackProvider as Provider, e, 'LLM_FALLBACK');
  return deepFreeze({
    telegram: {
      token: e.TELEGRAM_BOT_TOKEN,
      apiRoot: e.TELEGRAM_API_ROOT,
      allowedUserIds: e.ALLOWED_USER_IDS,
    },
    home: path.resolve(e.SATCHEL_HOME),
    packDirs: e.SATCHEL_PACKS.map((p) => path.resolve(p)),
    llm: {
      provider: e.LLM_PROVIDER,
      model: e.LLM_MODEL,
      fallback: fallbackProvider
        ? { provider: fallbackProvider as Provider, model: fallbackModel.join(':') }
        : undefined,
      timeoutMs: e.LLM_TIMEOUT_MS,
    },
    providers: {
      openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
      groq: { apiKey: e.GROQ_API_KEY, baseUrl: e.GROQ_BASE_URL },
      gemini: { apiKey: e.GEMINI_API_KEY, baseUrl: e.GEMINI_BASE_URL },
    },
    turnTimeoutMs: e.TURN_TIMEOUT_MS,
    sttModel: e.STT_MODEL,
    visionModel: e.VISION_MODEL,
    batchWindowMs: e.BATCH_WINDOW_MS,
    quota: {
      dailyTokens: e.QUOTA_DAILY_TOKENS,
      sessionTokens: e.QUOTA_SESSION_TOKENS,
      dailyUsd: e.QUOTA_DAILY_USD,
    },
    timezone: e.SATCHEL_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    dashboard: {
      port: e.DASHBOARD_PORT,
      token: e.DASHBOARD_TOKEN ?? randomBytes(16).toString('hex'),
    },
    logLevel: e.LOG_LEVEL,
  });
}

/** Reads `.env` from the working directory when present, then parses process.env. */
export function loadConfig(cwd = process.cwd()): Config {
  const file = path.join(cwd, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
  return parseConfig(process.env);
}

const KEY_VARS = {
  openai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
  groq: ['GROQ_API_KEY', 'GROQ_BASE_URL'],
  gemini: ['GEMINI_API_KEY', 'GEMINI_BASE_URL'],
} as const;

/**
 * A chat provider (the primary, or the fallback) needs a key, unless it is a self-hosted
 * compatible server (a base URL). Checked at start-up: a fallback without a key would
 * otherwise fail exactly when it is needed.
 */
function requireProviderKey(
  provider: Provider,
  env: Record<string, unknown>,
  variable: 'LLM_PROVIDER' | 'LLM_FALLBACK',
): void {
  const [key, baseUrl] = KEY_VARS[provider];
  if (env[key] === undefined && env[baseUrl] === undefined) {
    const value = variable === 'LLM_FALLBACK' ? String(env.LLM_FALLBACK) : provider;
    throw new ConfigError(
      `Invalid configuration:\n- ${key} is required when ${variable}=${value}: set it, or point ${baseUrl} at a compatible server`,
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
