import { Api, GrammyError } from 'grammy';
import { failureCause } from './errors.ts';

/** What `getMe` said about the token, in terms an operator acts on. */
export type TokenProbe =
  | {
      ok: true;
      username: string;
      id: number;
      webhookUrl: string | undefined;
      /** Privacy mode is off: the bot sees every group message, not only those for it. */
      readsAllGroupMessages: boolean;
    }
  | { ok: false; problem: string; fix: string };

/**
 * Calls `getMe` and `getWebhookInfo` with `token` against `apiRoot` (no polling, nothing
 * sent to anyone). Resolves with the bot's name and the webhook Telegram has for it, or with
 * what is wrong and how to fix it; never rejects.
 */
export async function probeToken(options: {
  token: string;
  apiRoot: string;
  signal: AbortSignal;
}): Promise<TokenProbe> {
  const api = new Api(options.token, { apiRoot: options.apiRoot });
  try {
    const signal = options.signal as Parameters<Api['getMe']>[0];
    const me = await api.getMe(signal);
    const info = await api.getWebhookInfo(signal);
    return {
      ok: true,
      username: me.username,
      id: me.id,
      webhookUrl: info.url || undefined,
      readsAllGroupMessages: me.can_read_all_group_messages === true,
    };
  } catch (error) {
    return failed(error, options);
  }
}

function failed(error: unknown, options: { apiRoot: string; signal: AbortSignal }): TokenProbe {
  if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404))
    return {
      ok: false,
      problem: `Telegram refused the token (${error.error_code}: ${error.description})`,
      fix:
        'Paste the token @BotFather gave you into TELEGRAM_BOT_TOKEN (in @BotFather, /mybots → ' +
        'your bot → API Token shows it; "Revoke" makes a new one).',
    };
  if (error instanceof GrammyError)
    return {
      ok: false,
      problem: `Telegram answered getMe with ${error.error_code}: ${error.description}`,
      fix: 'Try again in a minute; if it persists, check TELEGRAM_API_ROOT.',
    };
  const reason = options.signal.aborted ? 'no answer in time' : failureCause(error);
  return {
    ok: false,
    problem: `cannot reach ${options.apiRoot} (${reason})`,
    fix:
      'Check the network connection (and any proxy or firewall), and TELEGRAM_API_ROOT if it ' +
      'points at a self-hosted Bot API server.',
  };
}
