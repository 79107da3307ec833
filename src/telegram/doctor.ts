import { type Check, fail, pass, warn } from '../core/check.ts';
import type { EdgeChecks } from '../core/edge.ts';
import { probeToken, type TokenProbe } from './probe.ts';
import { checkAllowlistSecurity, checkWebhook } from './security.ts';
import type { TelegramConfig as TelegramChecksConfig } from './settings.ts';

/**
 * Telegram's lines of `satchel doctor`: the allowlist with the configuration, then the token
 * (and what getMe says of privacy mode and a webhook) beside the providers.
 */
export function telegramChecks(config: TelegramChecksConfig): EdgeChecks {
  return {
    local: () => [checkAllowlist(config)],
    remote: (timeoutMs) => checkToken(config, timeoutMs),
    security: () => [checkWebhook(config.telegram), checkAllowlistSecurity(config.telegram)],
  };
}

/**
 * The token (`getMe` against TELEGRAM_API_ROOT), a webhook that would stop polling, and
 * privacy mode, which hides group messages that are not for the bot. Without a token
 * satchel runs the web chat alone: worth knowing, not a failure.
 */
export async function checkToken(
  config: TelegramChecksConfig,
  timeoutMs: number,
): Promise<Check[]> {
  const { token } = config.telegram;
  if (token === undefined)
    return [
      warn(
        'Telegram: not configured (TELEGRAM_BOT_TOKEN is not set); satchel runs the web chat alone',
        'To talk on Telegram too, create a bot with @BotFather and put its token in TELEGRAM_BOT_TOKEN.',
      ),
    ];
  const probe = await probeToken({
    token,
    apiRoot: config.telegram.apiRoot,
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!probe.ok) return [fail(`Telegram: ${probe.problem}`, probe.fix)];
  const accepted = tokenCheck(config, probe);
  return probe.readsAllGroupMessages ? [accepted] : [accepted, privacyWarning(config)];
}

/**
 * With privacy mode on (BotFather's default) Telegram shows a bot in groups only commands,
 * mentions and replies to it: plain messages in a pack's forum topic, and every message with
 * GROUP_REPLY=all, never arrive.
 */
function privacyWarning(config: TelegramChecksConfig): Check {
  const hidden =
    config.groupReply === 'all'
      ? 'GROUP_REPLY=all and pack topics get only commands, mentions and replies'
      : 'plain messages in pack topics never arrive (mentions, replies and commands do)';
  return warn(
    `Telegram: privacy mode is on, so in groups the bot sees only messages addressed to it: ${hidden}`,
    'In @BotFather: /mybots → your bot → Bot Settings → Group Privacy → Turn off; then remove ' +
      'the bot from each group and add it again (or make it an admin) so the change applies.',
  );
}

function tokenCheck(config: TelegramChecksConfig, probe: Extract<TokenProbe, { ok: true }>): Check {
  const bot = `Telegram: token accepted, the bot is @${probe.username}`;
  const { webhook } = config.telegram;
  if (webhook) return pass(`${bot}; webhook mode (${webhook.url})`);
  if (probe.webhookUrl)
    return fail(
      `${bot}, but Telegram has a webhook set for it (${probe.webhookUrl}): long polling would stop with 409`,
      'Set TELEGRAM_WEBHOOK_URL (and its secret) to use webhook mode, or remove the webhook with ' +
        'the Bot API method deleteWebhook.',
    );
  return pass(bot);
}

/** The allowlist: empty denies everyone, which is never what a new owner wants. */
export function checkAllowlist(config: TelegramChecksConfig): Check {
  const ids = config.telegram.allowedUserIds;
  // The web chat needs none: the dashboard's token lets the owner in.
  if (config.telegram.token === undefined && ids.length === 0)
    return pass('allowlist: empty (not needed for the web chat)');
  if (ids.length > 0)
    return pass(`allowlist: ${ids.length} user${ids.length === 1 ? '' : 's'} (${ids.join(', ')})`);
  return fail(
    'allowlist: ALLOWED_USER_IDS is empty, so the bot answers no one',
    'Start the bot and send it a message: its reply tells you your numeric id. Put it in ' +
      'ALLOWED_USER_IDS (comma-separated for several) and restart.',
  );
}
