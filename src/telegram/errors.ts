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

/** Actionable hints for failures that stop the bot from polling at all. */
export function pollingHint(error: unknown): string | undefined {
  if (!(error instanceof GrammyError)) return undefined;
  if (error.error_code === 401) return 'Telegram rejected the bot token: check TELEGRAM_BOT_TOKEN.';
  if (error.error_code === 409)
    return 'Another process is polling with this bot token: stop it, or delete its webhook.';
  return undefined;
}
