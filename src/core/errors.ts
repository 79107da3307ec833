/**
 * The project's error tree. Every error has a stable `code`, a `userMessage` that is safe to
 * show in a chat, and the `cause` that is only ever logged.
 */
export class SatchelError extends Error {
  readonly code: string;
  readonly userMessage: string;

  constructor(
    code: string,
    message: string,
    options: { userMessage?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.userMessage = options.userMessage ?? GENERIC_FAILURE;
  }
}

export const GENERIC_FAILURE = 'Sorry, something went wrong with that message.';
/** What the user is told when /stop ended their turn. */
export const STOPPED = 'Stopped.';

/** A bad or missing configuration value; the message names the variable and the fix. */
export class ConfigError extends SatchelError {
  constructor(message: string) {
    super('config_invalid', message);
  }
}

/**
 * A model provider failed. `transient` errors (429, 5xx, timeout, network, a broken or cut-off
 * response) may be retried; `retryAfterMs` is the wait the provider asked for, when it said.
 */
export class ProviderError extends SatchelError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly transient: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    provider: string,
    message: string,
    options: { status?: number; transient: boolean; retryAfterMs?: number; cause?: unknown },
  ) {
    super('provider_error', message, { cause: options.cause });
    this.provider = provider;
    this.status = options.status;
    this.transient = options.transient;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A model call timed out (no answer, or a stream that stalled). Transient, but not retried
 * on the same model: each try would cost another full timeout.
 */
export class ProviderTimeoutError extends ProviderError {
  constructor(provider: string, message: string, cause?: unknown) {
    super(provider, message, { transient: true, cause });
  }
}

/** The turn was aborted on purpose (/stop, shutdown). Not a failure to report. */
export class AbortedError extends SatchelError {
  constructor(reason = 'aborted') {
    super('aborted', reason, { userMessage: STOPPED });
  }
}

/** The user sent /stop: the running turn ends, and the user is told. */
export class StopRequested extends AbortedError {
  constructor() {
    super('stopped by the user');
  }
}

/** Telegram refused a call. `retryAfterSec` is set for 429 (flood wait). */
export class TelegramApiError extends SatchelError {
  readonly method: string;
  readonly status: number | undefined;
  readonly retryAfterSec: number | undefined;
  readonly description: string;

  constructor(
    method: string,
    description: string,
    options: { status?: number; retryAfterSec?: number; cause?: unknown } = {},
  ) {
    super('telegram_error', `${method} failed: ${description}`, { cause: options.cause });
    this.method = method;
    this.description = description;
    this.status = options.status;
    this.retryAfterSec = options.retryAfterSec;
  }

  /** 5xx and network failures are worth retrying; 4xx (except 429) are not. */
  get transient(): boolean {
    return this.status === undefined || this.status >= 500;
  }

  get isFloodWait(): boolean {
    return this.status === 429;
  }

  get isParseError(): boolean {
    return this.status === 400 && /can't parse entities/i.test(this.description);
  }

  get isNotModified(): boolean {
    return this.status === 400 && /message is not modified/i.test(this.description);
  }

  /** The message to edit or delete no longer exists, or can no longer be changed. */
  get isMessageGone(): boolean {
    return (
      this.status === 400 &&
      /message to (edit|delete) not found|message can't be (edited|deleted)/i.test(this.description)
    );
  }
}

/** A file the user sent could not be fetched or taken in; `userMessage` says which and why. */
export class MediaError extends SatchelError {
  constructor(message: string, userMessage: string, cause?: unknown) {
    super('media_error', message, { userMessage, cause });
  }
}

/** A file the user sent is bigger than satchel may download (the Bot API's limit is 20 MB). */
export class FileTooLargeError extends MediaError {
  readonly bytes: number;
  readonly maxBytes: number;

  constructor(bytes: number, maxBytes: number) {
    super(
      `file of ${bytes} bytes over the ${maxBytes}-byte limit`,
      `That file is too big for me: I can take files up to ${Math.floor(maxBytes / 2 ** 20)} MB.`,
    );
    this.bytes = bytes;
    this.maxBytes = maxBytes;
  }
}

/** A local file to send cannot be read (missing, a directory, a bad path): retrying won't help. */
export class UnreadableFileError extends SatchelError {
  constructor(message: string, cause?: unknown) {
    super('file_unreadable', message, { cause });
  }
}

export function isAbort(error: unknown): boolean {
  if (error instanceof AbortedError) return true;
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')
  );
}
