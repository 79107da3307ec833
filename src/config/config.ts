import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { PROVIDERS, type Provider, type ProviderKeys, specOf } from '../providers/registry.ts';
import { coreEnvSchema, telegramEnvSchema } from './schema.ts';

export type { Provider, ProviderKeys };

type Env = Record<string, string | undefined>;

/**
 * The configuration of satchel without its Telegram part: what the core (stores, packs,
 * providers, the pipeline) reads. `satchel chat` runs on this alone.
 */
export interface CoreConfig {
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
  /** MAX_JOBS: the most scheduled jobs one pack may have in one chat or topic. */
  maxJobs: number;
  timezone: string;
  dashboard: { port: number; token: string };
  logLevel: string;
  /** `json` or `pretty`; unset: pretty when stdout is a terminal, else JSON. */
  logFormat: 'json' | 'pretty' | undefined;
  /** Every `SATCHEL_PACK_*` variable: the packs' settings (packs/settings.ts reads them). */
  packSettings: Readonly<Record<string, string>>;
}

/** satchel's whole configuration, read once from the environment and frozen. */
export interface Config extends CoreConfig {
  telegram: {
    token: string;
    apiRoot: string;
    allowedUserIds: readonly number[];
    /** Webhook mode (TELEGRAM_WEBHOOK_URL); long polling when undefined. */
    webhook: WebhookConfig | undefined;
  };
}

/** Where Telegram posts updates, the secret it sends with them, and where satchel listens. */
export interface WebhookConfig {
  url: string;
  secret: string;
  host: string;
  port: number;
}

export interface ParseOptions {
  /** `false`: the Telegram variables are neither required nor read (`satchel chat`). */
  telegram?: boolean;
}

/**
 * Parses and validates `env`. Throws a ConfigError whose message names every bad variable
 * and how to fix it. Pure: reads nothing but its arguments. With `{ telegram: false }` the
 * Telegram variables are left out, and so is the `telegram` part of the result.
 */
export function parseConfig(env: Env, options: ParseOptions & { telegram: false }): CoreConfig;
export function parseConfig(env: Env, options?: ParseOptions): Config;
export function parseConfig(env: Env, options: ParseOptions = {}): CoreConfig | Config {
  const tg = options.telegram === false ? undefined : telegramEnvSchema.safeParse(env);
  const result = coreEnvSchema.safeParse(env);
  const issues = [
    ...(tg?.success === false ? tg.error.issues : []),
    ...(result.success ? [] : result.error.issues),
  ];
  if (issues.length > 0 || !result.success) throw invalid(issues);
  const e = result.data;
  requireProviderKey(e.LLM_PROVIDER, e, 'LLM_PROVIDER');
  const [fallbackProvider, ...fallbackModel] = e.LLM_FALLBACK?.split(':') ?? [];
  if (fallbackProvider) requireProviderKey(fallbackProvider as Provider, e, 'LLM_FALLBACK');
  const core: CoreConfig = {
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
    providers: providerKeys(e),
    turnTimeoutMs: e.TURN_TIMEOUT_MS,
    sttModel: e.STT_MODEL,
    visionModel: e.VISION_MODEL,
    batchWindowMs: e.BATCH_WINDOW_MS,
    quota: {
      dailyTokens: e.QUOTA_DAILY_TOKENS,
      sessionTokens: e.QUOTA_SESSION_TOKENS,
      dailyUsd: e.QUOTA_DAILY_USD,
    },
    maxJobs: e.MAX_JOBS,
    timezone: e.SATCHEL_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    dashboard: {
      port: e.DASHBOARD_PORT,
      token: e.DASHBOARD_TOKEN ?? randomBytes(16).toString('hex'),
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    packSettings: packSettingsOf(env),
  };
  if (!tg?.success) return deepFreeze(core);
  return deepFreeze({
    telegram: {
      token: tg.data.TELEGRAM_BOT_TOKEN,
      apiRoot: tg.data.TELEGRAM_API_ROOT,
      allowedUserIds: tg.data.ALLOWED_USER_IDS,
      webhook: webhookConfig(tg.data),
    },
    ...core,
  });
}

/** The pack settings' variables; which of them a pack declares is the pack's business. */
function packSettingsOf(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('SATCHEL_PACK_') && typeof entry[1] === 'string',
    ),
  );
}

/** Webhook mode needs its secret: without it anyone who finds the URL could post updates. */
function webhookConfig(e: z.infer<typeof telegramEnvSchema>): WebhookConfig | undefined {
  if (!e.TELEGRAM_WEBHOOK_URL) return undefined;
  if (!e.TELEGRAM_WEBHOOK_SECRET)
    throw new ConfigError(
      'Invalid configuration:\n- TELEGRAM_WEBHOOK_SECRET is required with TELEGRAM_WEBHOOK_URL: ' +
        'set it to a random string of letters and digits (e.g. `openssl rand -hex 32`)',
    );
  return {
    url: e.TELEGRAM_WEBHOOK_URL,
    secret: e.TELEGRAM_WEBHOOK_SECRET,
    host: e.TELEGRAM_WEBHOOK_HOST,
    port: e.TELEGRAM_WEBHOOK_PORT,
  };
}

/** The error for every problem found: each names its variable and how to fix it. */
function invalid(issues: readonly z.core.$ZodIssue[]): ConfigError {
  const lines = issues.map((issue) => {
    const name = String(issue.path[0] ?? 'config');
    return issue.message.includes(name) ? `- ${issue.message}` : `- ${name}: ${issue.message}`;
  });
  return new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** Reads `.env` from the working directory when present, then parses process.env. */
export function loadConfig(cwd: string | undefined, options: { telegram: false }): CoreConfig;
export function loadConfig(cwd?: string): Config;
export function loadConfig(cwd = process.cwd(), options: ParseOptions = {}): CoreConfig | Config {
  const file = path.join(cwd, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
  return parseConfig(process.env, options);
}

/** Each provider's key and base URL, read from the variables its registry entry names. */
function providerKeys(env: Record<string, unknown>): ProviderKeys {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const keys = PROVIDERS.map((p) => [
    p.name,
    { apiKey: text(env[p.env.apiKey]), baseUrl: text(env[p.env.baseUrl]) },
  ]);
  return Object.fromEntries(keys) as ProviderKeys;
}

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
  const { apiKey: key, baseUrl } = specOf(provider).env;
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
