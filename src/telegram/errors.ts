import { GrammyError, HttpError } from 'grammy';
import { ChannelError, type ChannelErrorKind } from '../core/errors.ts';

/**
 * A Bot API call failed: a ChannelError that keeps Telegram's answer (`status`, the
 * `description`) for the logs. Its kind is read from that answer in `kindOf`, the one place
 * that knows Telegram's wording.
 */
export class TelegramApiError extends ChannelError {
  /** The HTTP status Telegram answered with; undefined when no answer came. */
  readonly status: number | undefined;
  readonly description: string;

  constructor(
    method: string,
    description: string,
    options: { status?: number; retryAfterSec?: number; cause?: unknown } = {},
  ) {
    super(kindOf(options.status, description), method, description, {
      ...(options.retryAfterSec === undefined
        ? {}
        : { retryAfterMs: options.retryAfterSec * 1000 }),
      cause: options.cause,
    });
    this.status = options.status;
    this.description = description;
  }
}

/**
 * The one place Bot API failures become the project's errors: grammY's GrammyError (Telegram
 * answered with an error) and HttpError (no answer) become a TelegramApiError, a ChannelError
 * of the matching kind. The message keeps Telegram's description or the network reason,
 * never the request URL (it carries the bot token). Anything else is returned as it is.
 */
export function toChannelError(method: string, error: unknown): unknown {
  if (error instanceof ChannelError) return error;
  if (error instanceof GrammyError) {
    return new TelegramApiError(method, error.description, {
      status: error.error_code,
      ...(error.parameters.retry_after === undefined
        ? {}
        : { retryAfterSec: error.parameters.retry_after }),
      cause: error,
    });
  }
  if (error instanceof HttpError)
    return new TelegramApiError(method, `network error: ${failureCause(error)}`, { cause: error });
  return error;
}

/** Telegram's answer as a ChannelError kind; no answer at all is transient. */
function kindOf(status: number | undefined, description: string): ChannelErrorKind {
  if (status === undefined || status >= 500) return 'transient';
  if (status === 429) return 'rate_limited';
  if (status !== 400) return 'refused';
  if (/can't parse entities/i.test(description)) return 'bad_markup';
  if (/message is not modified/i.test(description)) return 'not_modified';
  if (/message to (edit|delete) not found|message can't be (edited|deleted)/i.test(description))
    return 'gone';
  // A deleted forum topic: the Bot API sends no update for the deletion, only this.
  if (/message thread not found/i.test(description)) return 'thread_gone';
  return 'refused';
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
