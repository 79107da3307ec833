import { GrammyError, HttpError } from 'grammy';
import { TelegramApiError } from '../core/errors.ts';

/** The one place Bot API failures become the project's TelegramApiError. */
export function toTelegramError(method: string, error: unknown): unknown {
  if (error instanceof TelegramApiError) return error;
  if (error instanceof GrammyError) {
    return new TelegramApiError(method, error.description, {
      status: error.error_code,
      ...(error.parameters.retry_after === undefined
        ? {}
        : { retryAfterSec: error.parameters.retry_after }),
      cause: error,
    });
  }
  if (error instanceof HttpError) {
    // No answer from Telegram (network, DNS, reset): worth retrying.
    return new TelegramApiError(method, `network error: ${describe(error.error)}`, {
      cause: error,
    });
  }
  return error;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why a Bot API call failed, in one line an operator can act on: the network reason
 * ("connect ECONNREFUSED 127.0.0.1:8081") or Telegram's answer ("502: Bad Gateway").
 * Request URLs carry the bot token, so any URL is cut out; the logger scrubs it as well.
 */
export function failureCause(error: unknown): string {
  if (error instanceof GrammyError) return `${error.error_code}: ${error.description}`;
  const inner = error instanceof HttpError ? error.error : error;
  const text = describe(inner);
  // node-fetch: "request to <url> failed, reason: <reason>".
  const reason = /, reason: (.*)$/s.exec(text)?.[1] ?? text;
  return reason.replace(/\S*\/bot[^/\s]*\S*/g, '<url>');
}

/** Failures that retrying cannot fix: a rejected token (401), another poller (409). */
export function isFatalPollingError(error: unknown): boolean {
  return pollingHint(error) !== undefined;
}

/** Actionable hints for failures that stop the bot from polling at all. */
export function pollingHint(error: unknown): string | undefined {
  if (!(error instanceof GrammyError)) return undefined;
  if (error.error_code === 401) return 'Telegram rejected the bot token: check TELEGRAM_BOT_TOKEN.';
  if (error.error_code === 409)
    return 'Another process is polling with this bot token: stop it, or delete its webhook.';
  return undefined;
}
