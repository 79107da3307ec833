import { type Check, fail, pass, STRONG_SECRET, warn, weakSecret } from '../core/check.ts';
import type { TelegramSettings } from './settings.ts';

/** Webhook mode: Telegram's secret header is all that keeps forged updates out. */
export function checkWebhook(settings: Pick<TelegramSettings, 'webhook'>): Check {
  const { webhook } = settings;
  if (!webhook) return pass('webhook: not used (long polling)');
  if (weakSecret(webhook.secret))
    return warn(
      `webhook secret: TELEGRAM_WEBHOOK_SECRET is weak (${webhook.secret.length} characters): whoever guesses it can post updates as any user`,
      `Set TELEGRAM_WEBHOOK_SECRET to ${STRONG_SECRET} and restart.`,
    );
  return pass('webhook secret: long and varied');
}

/** With Telegram on, an empty allowlist means nobody can use or own the bot. */
export function checkAllowlistSecurity(
  settings: Pick<TelegramSettings, 'token' | 'allowedUserIds'>,
): Check {
  const { allowedUserIds } = settings;
  if (!settings.token) return pass('allowlist: Telegram is not configured');
  if (allowedUserIds.length === 0)
    return fail(
      'allowlist: ALLOWED_USER_IDS is empty while Telegram is configured: nobody can use or own the bot (no owner approves tool calls)',
      'Put your numeric Telegram user id first in ALLOWED_USER_IDS (`npx satchel setup` finds it).',
    );
  return pass(`allowlist: ${allowedUserIds.length} user(s); the owner is ${allowedUserIds[0]}`);
}
