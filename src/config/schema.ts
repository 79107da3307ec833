import { z } from 'zod';
import { PROVIDER_NAMES, PROVIDERS, STT_PROVIDERS } from '../providers/registry.ts';
import { SEARCH_PROVIDERS } from '../tools/search/provider.ts';

/**
 * A numeric variable: `fallback` when unset or empty, else its number when `valid` accepts
 * it; otherwise the configuration is refused with "NAME must be `what`".
 */
const numericFrom = (name: string, fallback: number, valid: (n: number) => boolean, what: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const n = Number(value);
      if (!valid(n)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be ${what}` });
        return z.NEVER;
      }
      return n;
    });

export const intFrom = (name: string, min: number, fallback: number) =>
  numericFrom(name, fallback, (n) => Number.isInteger(n) && n >= min, `a whole number ≥ ${min}`);

const numberFrom = (name: string, fallback: number) =>
  numericFrom(name, fallback, (n) => Number.isFinite(n) && n >= 0, 'a number ≥ 0');

export const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

export const url = (name: string) =>
  optionalText.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), {
    message: `${name} must be an http(s) URL`,
  });

/** The providers satchel knows, and each one's key and base URL (providers/registry.ts). */
const provider = z.enum(PROVIDER_NAMES);
const providerVars: Record<string, typeof optionalText> = Object.fromEntries(
  PROVIDERS.flatMap((p) => [
    [p.env.apiKey, optionalText],
    [p.env.baseUrl, url(p.env.baseUrl)],
  ]),
);
const fallbackRef = new RegExp(`^(${PROVIDER_NAMES.join('|')}):.+$`);

/** What the core reads, in the bot and in `satchel chat`; the edges read their own. */
const coreVars = {
  SATCHEL_HOME: optionalText.transform((v) => v ?? './data'),
  SATCHEL_PACKS: optionalText.transform((v) =>
    (v ?? './packs')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  ),
  LLM_PROVIDER: optionalText.pipe(provider.optional()).transform((v) => v ?? 'openai'),
  LLM_MODEL: optionalText,
  LLM_FALLBACK: optionalText.refine((v) => v === undefined || fallbackRef.test(v), {
    message: 'LLM_FALLBACK must look like "provider:model", e.g. "groq:llama-3.3-70b-versatile"',
  }),
  LLM_TIMEOUT_MS: intFrom('LLM_TIMEOUT_MS', 1, 120_000),
  TURN_TIMEOUT_MS: intFrom('TURN_TIMEOUT_MS', 1, 300_000),
  ...providerVars,
  // Speech to text: its defaults come from the provider keys (config/stt.ts).
  STT_PROVIDER: optionalText.pipe(
    z
      .enum([...STT_PROVIDERS, 'off'], {
        error: `STT_PROVIDER must be ${[...STT_PROVIDERS, 'off'].map((p) => `"${p}"`).join(', ')} (or empty for the default)`,
      })
      .optional(),
  ),
  STT_MODEL: optionalText,
  STT_BASE_URL: url('STT_BASE_URL'),
  STT_API_KEY: optionalText,
  VISION_MODEL: optionalText,
  BATCH_WINDOW_MS: intFrom('BATCH_WINDOW_MS', 0, 800),
  // Unset: the bundled `assistant`; set but empty: no default (the picker), so they differ.
  DEFAULT_PACK: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? undefined : v.trim()))
    .refine((v) => v === undefined || v === '' || /^[a-z][a-z0-9-]*$/.test(v), {
      message: 'DEFAULT_PACK must be a pack name such as "assistant" (or empty for the picker)',
    }),
  GROUP_REPLY: optionalText
    .pipe(
      z.enum(['mention', 'all'], { error: 'GROUP_REPLY must be "mention" or "all"' }).optional(),
    )
    .transform((v) => v ?? 'mention'),
  // Set but empty turns the reaction off, so unset and empty differ here.
  ACK_REACTION: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? '👀' : v.trim())),
  QUOTA_DAILY_TOKENS: intFrom('QUOTA_DAILY_TOKENS', 0, 2_000_000),
  QUOTA_SESSION_TOKENS: intFrom('QUOTA_SESSION_TOKENS', 0, 500_000),
  QUOTA_DAILY_USD: numberFrom('QUOTA_DAILY_USD', 0),
  PERSON_DAILY_USD: numberFrom('PERSON_DAILY_USD', 0.5),
  PERSON_DAILY_TOKENS: intFrom('PERSON_DAILY_TOKENS', 0, 200_000),
  MAX_JOBS: intFrom('MAX_JOBS', 1, 50),
  TOOL_APPROVAL: optionalText
    .pipe(
      z
        .enum(['tainted', 'always', 'off'], {
          error: 'TOOL_APPROVAL must be "tainted", "always" or "off" (or empty for tainted)',
        })
        .optional(),
    )
    .transform((v) => v ?? 'tainted'),
  APPROVAL_TIMEOUT_MS: intFrom('APPROVAL_TIMEOUT_MS', 1, 300_000),
  VOICE_REPLY: optionalText
    .pipe(
      z
        .enum(['off', 'inbound', 'always'], {
          error: 'VOICE_REPLY must be "off" or "inbound" or "always" (or empty for off)',
        })
        .optional(),
    )
    .transform((v) => v ?? 'off'),
  TTS_MODEL: optionalText
    .refine((v) => v === undefined || fallbackRef.test(v), {
      message: 'TTS_MODEL must look like "provider:model", e.g. "openai:gpt-4o-mini-tts"',
    })
    .transform((v) => v ?? 'openai:gpt-4o-mini-tts'),
  TTS_VOICE: optionalText.transform((v) => v ?? 'alloy'),
  QUEUE_MODE: optionalText
    .pipe(
      z
        .enum(['followup', 'steer'], {
          error: 'QUEUE_MODE must be "followup" or "steer" (or empty for followup)',
        })
        .optional(),
    )
    .transform((v) => v ?? 'followup'),
  JOB_IDLE_DAYS: intFrom('JOB_IDLE_DAYS', 0, 14),
  WEB_FETCH_ALLOW_HOSTS: optionalText.transform((v) =>
    (v ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  ),
  WEB_FETCH_MAX_CHARS: intFrom('WEB_FETCH_MAX_CHARS', 1, 20_000),
  WEB_SEARCH_PROVIDER: optionalText.pipe(
    z
      .enum(SEARCH_PROVIDERS, {
        error: 'WEB_SEARCH_PROVIDER must be "brave", "tavily" or "searxng" (or empty)',
      })
      .optional(),
  ),
  BRAVE_API_KEY: optionalText,
  TAVILY_API_KEY: optionalText,
  SEARXNG_URL: url('SEARXNG_URL'),
  WEB_SEARCH_BASE_URL: url('WEB_SEARCH_BASE_URL'),
  SATCHEL_MODELS: optionalText,
  UNKNOWN_PRICE: optionalText
    .pipe(
      z
        .enum(['refuse', 'allow'], {
          error: 'UNKNOWN_PRICE must be "refuse" or "allow" (or empty)',
        })
        .optional(),
    )
    .transform((v) => v ?? 'refuse'),
  SATCHEL_TIMEZONE: optionalText.refine(
    (v) => {
      if (v === undefined) return true;
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: v });
        return true;
      } catch {
        return false;
      }
    },
    { message: 'SATCHEL_TIMEZONE must be an IANA zone such as "Europe/Berlin"' },
  ),
  DASHBOARD_PORT: intFrom('DASHBOARD_PORT', 0, 8787).refine((p) => p <= 65535, {
    message: 'DASHBOARD_PORT must be 0–65535',
  }),
  DASHBOARD_TOKEN: optionalText,
  LOG_LEVEL: optionalText
    .pipe(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional())
    .transform((v) => v ?? 'info'),
  LOG_FORMAT: optionalText.pipe(
    z
      .enum(['json', 'pretty'], { error: 'LOG_FORMAT must be "json" or "pretty" (or empty)' })
      .optional(),
  ),
};

/** Every variable of the core, as it appears in the environment (each edge has its own). */
export const envSchema = z.object(coreVars);
