import { z } from 'zod';
import { intFrom, optionalText, url } from '../config/schema.ts';
import type { EdgeConfig } from '../core/edge.ts';
import { ConfigError } from '../core/errors.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Telegram's own Bot API server, used unless `TELEGRAM_API_ROOT` points elsewhere. */
export const DEFAULT_TELEGRAM_API_ROOT = 'https://api.telegram.org';

/** A Telegram user id as the allowlist holds it: its decimal digits. */
const TELEGRAM_ID = /^\d+$/;

/**
 * Telegram's variables, each with its check. Without a token satchel runs the web chat alone
 * (SPEC §16); a token given must look like one. The allowlist holds Telegram's own ids.
 */
export const telegramVariables = z.object({
  TELEGRAM_BOT_TOKEN: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z
      .string()
      .trim()
      .regex(
        /^\d+:[\w-]{5,}$/,
        'TELEGRAM_BOT_TOKEN looks malformed: expected "<digits>:<letters>" as BotFather gives it',
      )
      .optional(),
  ),
  TELEGRAM_API_ROOT: url('TELEGRAM_API_ROOT').transform((v) =>
    (v ?? DEFAULT_TELEGRAM_API_ROOT).replace(/\/+$/, ''),
  ),
  /** `true` with a self-hosted Bot API server: files up to 2 GB are read from its disk (§18). */
  TELEGRAM_LOCAL_FILES: optionalText
    .pipe(
      z
        .enum(['true', 'false'], {
          error: 'TELEGRAM_LOCAL_FILES must be "true" or "false" (or empty for false)',
        })
        .optional(),
    )
    .transform((v) => v === 'true'),
  TELEGRAM_WEBHOOK_URL: url('TELEGRAM_WEBHOOK_URL'),
  TELEGRAM_WEBHOOK_SECRET: optionalText.refine(
    (v) => v === undefined || /^[A-Za-z0-9_-]{1,256}$/.test(v),
    { message: 'TELEGRAM_WEBHOOK_SECRET must be 1–256 characters: letters, digits, _ and -' },
  ),
  TELEGRAM_WEBHOOK_PORT: intFrom('TELEGRAM_WEBHOOK_PORT', 1, 8443).refine((p) => p <= 65535, {
    message: 'TELEGRAM_WEBHOOK_PORT must be 1–65535',
  }),
  TELEGRAM_WEBHOOK_HOST: optionalText.transform((v) => v ?? '127.0.0.1'),
  ALLOWED_USER_IDS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const parts = (value ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const bad = parts.find((p) => !TELEGRAM_ID.test(p));
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `ALLOWED_USER_IDS has "${bad}", which is not a numeric Telegram user id`,
        });
        return z.NEVER;
      }
      return parts;
    }),
  /** `on`: a stranger in a private chat gets a pairing code the owner can approve (§18). */
  DM_PAIRING: optionalText
    .pipe(
      z
        .enum(['on', 'off'], { error: 'DM_PAIRING must be "on" or "off" (or empty for on)' })
        .optional(),
    )
    .transform((v) => v ?? 'on'),
});

/** The names of Telegram's variables, known to the `.env` checks. */
export const TELEGRAM_VARIABLES: readonly string[] = Object.keys(telegramVariables.shape);

/** Where Telegram posts updates, the secret it sends with them, and where satchel listens. */
export interface WebhookConfig {
  url: string;
  secret: string;
  host: string;
  port: number;
}

/** What the Telegram edge reads of the environment, checked. */
export interface TelegramSettings {
  /** Unset: no bot; `npm start` runs the web chat and the dashboard alone (SPEC §16). */
  token: string | undefined;
  apiRoot: string;
  /** Webhook mode (TELEGRAM_WEBHOOK_URL); long polling when undefined. */
  webhook: WebhookConfig | undefined;
  /** TELEGRAM_LOCAL_FILES: a self-hosted Bot API server returns files as local paths (§18). */
  localFiles: boolean;
  /** ALLOWED_USER_IDS: Telegram user ids (decimal digits) let in; empty: no one. */
  allowedUserIds: readonly string[];
  /** The owner on Telegram: the first allowed id; undefined when there is none. */
  owner: string | undefined;
  /** DM_PAIRING: a stranger in a private chat gets a code the owner can approve (§18). */
  pairing: boolean;
}

/**
 * Telegram's settings from the environment. Throws a ConfigError that names every bad
 * variable and how to fix it (webhook mode needs its token and its secret too).
 */
export function telegramSettings(env: Env): TelegramSettings {
  const parsed = telegramVariables.safeParse(env);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map(issueLine)),
    ...missingWebhookNeeds(env),
  ];
  if (!parsed.success || problems.length > 0)
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  const e = parsed.data;
  return {
    token: e.TELEGRAM_BOT_TOKEN,
    apiRoot: e.TELEGRAM_API_ROOT,
    webhook:
      e.TELEGRAM_WEBHOOK_URL && e.TELEGRAM_WEBHOOK_SECRET
        ? {
            url: e.TELEGRAM_WEBHOOK_URL,
            secret: e.TELEGRAM_WEBHOOK_SECRET,
            host: e.TELEGRAM_WEBHOOK_HOST,
            port: e.TELEGRAM_WEBHOOK_PORT,
          }
        : undefined,
    localFiles: e.TELEGRAM_LOCAL_FILES,
    allowedUserIds: e.ALLOWED_USER_IDS,
    owner: e.ALLOWED_USER_IDS[0],
    pairing: e.DM_PAIRING === 'on',
  };
}

/** A schema problem as a line of the error: it names its variable and how to fix it. */
function issueLine(issue: z.core.$ZodIssue): string {
  const name = String(issue.path[0] ?? 'config');
  return issue.message.includes(name) ? `- ${issue.message}` : `- ${name}: ${issue.message}`;
}

const blank = (value: string | undefined) => value === undefined || value.trim() === '';

/**
 * Webhook mode needs a bot, and its secret: without the secret anyone who finds the URL
 * could post updates.
 */
function missingWebhookNeeds(env: Env): string[] {
  if (blank(env.TELEGRAM_WEBHOOK_URL)) return [];
  return [
    ...(blank(env.TELEGRAM_BOT_TOKEN)
      ? [
          '- TELEGRAM_BOT_TOKEN is required with TELEGRAM_WEBHOOK_URL: ' +
            'create a bot with @BotFather and paste its token',
        ]
      : []),
    ...(blank(env.TELEGRAM_WEBHOOK_SECRET)
      ? [
          '- TELEGRAM_WEBHOOK_SECRET is required with TELEGRAM_WEBHOOK_URL: ' +
            'set it to a random string of letters and digits (e.g. `openssl rand -hex 32`)',
        ]
      : []),
  ];
}

/** What the Telegram edge reads: its own settings, and the core's GROUP_REPLY. */
export interface TelegramConfig {
  telegram: TelegramSettings;
  groupReply: EdgeConfig['groupReply'];
}
