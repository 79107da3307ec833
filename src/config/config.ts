import { existsSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { ApprovalPolicy } from '../core/trust.ts';
import { installedPacksDir } from '../packs/installed.ts';
import {
  PROVIDER_NAMES,
  PROVIDERS,
  type Provider,
  type ProviderKeys,
  type SttSettings,
  specOf,
} from '../providers/registry.ts';
import type { SearchConfig } from '../tools/search/providers.ts';
import { envSchema } from './schema.ts';
import { missingSttNeeds, sttSettings } from './stt.ts';

export type { Provider, ProviderKeys };

type Env = Record<string, string | undefined>;

/** The pack a new conversation starts with when DEFAULT_PACK is unset (SPEC §1). */
export const DEFAULT_PACK = 'assistant';

/**
 * The core's configuration: what the stores, packs, providers and the pipeline read.
 * `satchel chat` runs on this alone.
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
  /** Speech to text (STT_PROVIDER and its variables); undefined when it is off. */
  stt: SttSettings | undefined;
  visionModel: string | undefined;
  batchWindowMs: number;
  /**
   * DEFAULT_PACK: the pack a conversation with no binding starts with (SPEC §3); `name` ''
   * means the picker. `explicit`: it names another pack than the built-in `assistant`, so a
   * name of no loaded pack stops the start (routing/default-pack.ts); the built-in default
   * only warns.
   */
  defaultPack: { name: string; explicit: boolean };
  /** GROUP_REPLY: in groups outside pack topics, answer only messages addressed to the bot. */
  groupReply: 'mention' | 'all';
  /** ACK_REACTION: the reaction on a message while its turn runs; '' = none. */
  ackReaction: string;
  quota: { dailyTokens: number; sessionTokens: number; dailyUsd: number };
  /** PERSON_DAILY_USD, PERSON_DAILY_TOKENS: each person's but the owner's caps (SPEC §19). */
  personCaps: { dailyUsd: number; dailyTokens: number };
  /** The owner's model catalog (SATCHEL_MODELS) and what a USD cap does with unpriced models. */
  models: {
    file: string;
    /** SATCHEL_MODELS was set: the file must exist. */
    required: boolean;
    unknownPrice: 'refuse' | 'allow';
  };
  /** MAX_JOBS: the most scheduled jobs one pack may have in one chat or topic. */
  maxJobs: number;
  /** When a tool call waits for the owner's approval (SPEC §17). */
  trust: {
    /** TOOL_APPROVAL: `tainted` (a turn that read outside content asks), `always` or `off`. */
    approval: ApprovalPolicy;
    /** APPROVAL_TIMEOUT_MS: how long an approval waits before it counts as denied. */
    approvalTimeoutMs: number;
  };
  /** Voice replies (SPEC §18). */
  voice: {
    /** VOICE_REPLY: the default of /voice — `off`, `inbound` (a voice note gets one) or `always`. */
    reply: 'off' | 'inbound' | 'always';
    /** TTS_MODEL: who speaks the answers. */
    tts: { provider: Provider; model: string };
    /** TTS_VOICE: the provider's voice name. */
    voice: string;
  };
  /** QUEUE_MODE: the default of /queue — a message sent while a turn runs waits or steers it. */
  queueMode: 'followup' | 'steer';
  /** JOB_IDLE_DAYS: a chat's jobs pause after this many days without a person; 0 = never. */
  jobIdleDays: number;
  /** web_fetch and web_search (SPEC §13). */
  web: {
    /** WEB_FETCH_ALLOW_HOSTS: `host` or `host:port`, lowercased. */
    allowHosts: readonly string[];
    maxChars: number;
    /** Undefined without WEB_SEARCH_PROVIDER. */
    search: SearchConfig | undefined;
  };
  timezone: string;
  /** `token` undefined: the one kept in SATCHEL_HOME is used (dashboard/kept-token.ts). */
  dashboard: { port: number; token: string | undefined };
  logLevel: string;
  /** `json` or `pretty`; unset: pretty when stdout is a terminal, else JSON. */
  logFormat: 'json' | 'pretty' | undefined;
  /** Every `SATCHEL_PACK_*` variable: the packs' settings (packs/settings.ts reads them). */
  packSettings: Readonly<Record<string, string>>;
  /**
   * The environment as it was read (`.env` included): each edge reads and checks its own
   * variables here (src/edges.ts), so the core names none of them.
   */
  env: Readonly<Record<string, string>>;
}

/**
 * satchel's whole configuration, read once from the environment and frozen. The edges'
 * variables are their own: each reads and checks them from `env` (src/edges.ts).
 */
export type Config = CoreConfig;

/**
 * Parses and validates the core's variables in `env`. Throws a ConfigError whose message
 * names every bad variable and how to fix it. Pure: reads nothing but its arguments. The
 * edges' variables are left to them (`env` is kept, frozen, for them to read).
 */
export function parseConfig(env: Env): Config {
  const result = envSchema.safeParse(env);
  // Every problem in one round: the schema's and the missing keys.
  const problems = [
    ...(result.success ? [] : result.error.issues.map(issueLine)),
    ...missingProviderKeys(env),
    ...missingSearchNeeds(env),
    ...missingSttNeeds(env),
  ];
  if (problems.length > 0 || !result.success)
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  const e = result.data;
  const [fallbackProvider, ...fallbackModel] = e.LLM_FALLBACK?.split(':') ?? [];
  const modelRef = (ref: string) => {
    const [provider, ...model] = ref.split(':');
    return { provider: provider as Provider, model: model.join(':') };
  };
  const providers = providerKeys(e);
  const core: CoreConfig = {
    home: path.resolve(e.SATCHEL_HOME),
    // Packs installed by `satchel pack add` are always searched, after SATCHEL_PACKS.
    packDirs: [
      ...e.SATCHEL_PACKS.map((p) => path.resolve(p)),
      installedPacksDir(path.resolve(e.SATCHEL_HOME)),
    ],
    llm: {
      provider: e.LLM_PROVIDER,
      model: e.LLM_MODEL,
      fallback: fallbackProvider
        ? { provider: fallbackProvider as Provider, model: fallbackModel.join(':') }
        : undefined,
      timeoutMs: e.LLM_TIMEOUT_MS,
    },
    providers,
    turnTimeoutMs: e.TURN_TIMEOUT_MS,
    stt: sttSettings(e, providers),
    visionModel: e.VISION_MODEL,
    batchWindowMs: e.BATCH_WINDOW_MS,
    // `assistant`, unset or written out (as .env.example does), is the built-in default.
    defaultPack: {
      name: e.DEFAULT_PACK ?? DEFAULT_PACK,
      explicit: ![DEFAULT_PACK, ''].includes(e.DEFAULT_PACK ?? DEFAULT_PACK),
    },
    groupReply: e.GROUP_REPLY,
    ackReaction: e.ACK_REACTION,
    quota: {
      dailyTokens: e.QUOTA_DAILY_TOKENS,
      sessionTokens: e.QUOTA_SESSION_TOKENS,
      dailyUsd: e.QUOTA_DAILY_USD,
    },
    personCaps: { dailyUsd: e.PERSON_DAILY_USD, dailyTokens: e.PERSON_DAILY_TOKENS },
    models: {
      file: path.resolve(e.SATCHEL_MODELS ?? path.join(e.SATCHEL_HOME, 'models.yaml')),
      required: e.SATCHEL_MODELS !== undefined,
      unknownPrice: e.UNKNOWN_PRICE,
    },
    maxJobs: e.MAX_JOBS,
    trust: { approval: e.TOOL_APPROVAL, approvalTimeoutMs: e.APPROVAL_TIMEOUT_MS },
    voice: { reply: e.VOICE_REPLY, tts: modelRef(e.TTS_MODEL), voice: e.TTS_VOICE },
    queueMode: e.QUEUE_MODE,
    jobIdleDays: e.JOB_IDLE_DAYS,
    web: {
      allowHosts: e.WEB_FETCH_ALLOW_HOSTS,
      maxChars: e.WEB_FETCH_MAX_CHARS,
      search: searchConfig(e),
    },
    timezone: e.SATCHEL_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    dashboard: {
      port: e.DASHBOARD_PORT,
      token: e.DASHBOARD_TOKEN,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    packSettings: packSettingsOf(env),
    env: stringsOf(env),
  };
  return deepFreeze(core);
}

/** The environment's set variables, for the edges to read their own. */
function stringsOf(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
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

/** A schema problem as a line of the error: it names its variable and how to fix it. */
function issueLine(issue: z.core.$ZodIssue): string {
  const name = String(issue.path[0] ?? 'config');
  return issue.message.includes(name) ? `- ${issue.message}` : `- ${name}: ${issue.message}`;
}

const blank = (value: string | undefined) => value === undefined || value.trim() === '';

/** The environment with `.env` from the working directory loaded into it, when present. */
export function loadEnv(cwd = process.cwd()): Readonly<Record<string, string | undefined>> {
  const file = path.join(cwd, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
  return process.env;
}

/** Reads `.env` from the working directory when present, then parses process.env. */
export function loadConfig(cwd = process.cwd()): Config {
  const file = path.join(cwd, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
  return parseConfig(process.env);
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
 * otherwise fail exactly when it is needed. Read from the raw environment, so a missing key
 * is reported with any other problem (an unknown provider is the schema's to report).
 */
function missingProviderKeys(env: Env): string[] {
  const primary = env.LLM_PROVIDER?.trim() || 'openai';
  const fallback = env.LLM_FALLBACK?.trim();
  const fallbackProvider = fallback?.includes(':') ? fallback.split(':')[0] : undefined;
  const wanted: [string, 'LLM_PROVIDER' | 'LLM_FALLBACK', string][] = [
    [primary, 'LLM_PROVIDER', primary],
    ...(fallbackProvider && fallback
      ? [[fallbackProvider, 'LLM_FALLBACK', fallback] as [string, 'LLM_FALLBACK', string]]
      : []),
  ];
  return wanted.flatMap(([provider, variable, value]) => {
    if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) return [];
    const { apiKey: key, baseUrl } = specOf(provider as Provider).env;
    if (!blank(env[key]) || !blank(env[baseUrl])) return [];
    return [
      `- ${key} is required when ${variable}=${value}: set it, or point ${baseUrl} at a compatible server`,
    ];
  });
}

/** The search provider and what it needs: a key (Brave, Tavily) or an instance (SearXNG). */
/** The key or URL each web search provider needs. */
const SEARCH_NEEDS = {
  brave: 'BRAVE_API_KEY',
  tavily: 'TAVILY_API_KEY',
  searxng: 'SEARXNG_URL',
} as const;

/** A web search provider without its key (or, for SearXNG, its URL). */
function missingSearchNeeds(env: Env): string[] {
  const provider = env.WEB_SEARCH_PROVIDER?.trim() as keyof typeof SEARCH_NEEDS | undefined;
  if (!provider || !(provider in SEARCH_NEEDS)) return [];
  const variable = SEARCH_NEEDS[provider];
  const present =
    provider === 'searxng'
      ? !blank(env.SEARXNG_URL) || !blank(env.WEB_SEARCH_BASE_URL)
      : !blank(env[variable]);
  return present
    ? []
    : [
        `- ${variable} is required when WEB_SEARCH_PROVIDER=${provider}: set it, or leave WEB_SEARCH_PROVIDER empty to go without web search`,
      ];
}

function searchConfig(e: z.infer<typeof envSchema>): SearchConfig | undefined {
  const provider = e.WEB_SEARCH_PROVIDER;
  if (!provider) return undefined;
  return {
    provider,
    braveApiKey: e.BRAVE_API_KEY,
    tavilyApiKey: e.TAVILY_API_KEY,
    searxngUrl: e.SEARXNG_URL,
    baseUrl: e.WEB_SEARCH_BASE_URL,
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
