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
/**
 * What the user is told when the model provider could not be reached or kept failing (a
 * network error, 5xx, 429, a timeout or a broken answer, after the retries and the fallback).
 * Their message is kept in the conversation, so the next one is answered with it in view.
 */
export const PROVIDER_UNAVAILABLE =
  'The model provider did not answer, so I could not reply. Please write again in a moment.';
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
  /** What the owner should do, when the failure is theirs to fix (a refused key). */
  readonly hint: string | undefined;

  constructor(
    provider: string,
    message: string,
    options: {
      status?: number;
      transient: boolean;
      retryAfterMs?: number;
      cause?: unknown;
      /**
       * What the user is told: by default that the provider did not answer when the failure is
       * transient, the generic apology otherwise.
       */
      userMessage?: string;
      hint?: string;
    },
  ) {
    const userMessage =
      options.userMessage ?? (options.transient ? PROVIDER_UNAVAILABLE : undefined);
    super('provider_error', message, {
      cause: options.cause,
      ...(userMessage ? { userMessage } : {}),
    });
    this.provider = provider;
    this.status = options.status;
    this.transient = options.transient;
    this.retryAfterMs = options.retryAfterMs;
    this.hint = options.hint;
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

/**
 * What went wrong with a channel call, in terms the pipeline acts on. Each channel maps its
 * platform's failures into these kinds in one function; nothing outside it reads a vendor's
 * wording.
 * - `rate_limited`: too many calls; no call to that chat before `retryAfterMs` has passed.
 * - `bad_markup`: the formatted text was refused; the same words as plain text may pass.
 * - `not_modified`: an edit would change nothing: what it asks for is already shown.
 * - `gone`: the message to edit or delete no longer exists, or can no longer be changed.
 * - `thread_gone`: the thread (a forum topic) the call went to no longer exists (deleted).
 * - `refused`: any other final refusal (no rights, no such chat, a bad request).
 * - `transient`: a server error, a network failure or no answer; worth another try.
 */
export type ChannelErrorKind =
  | 'rate_limited'
  | 'bad_markup'
  | 'not_modified'
  | 'gone'
  | 'thread_gone'
  | 'refused'
  | 'transient';

/** A channel call failed. `method` is the channel's name for the call, for logs. */
export class ChannelError extends SatchelError {
  readonly kind: ChannelErrorKind;
  readonly method: string;
  /** The wait the channel asked for (`rate_limited`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    kind: ChannelErrorKind,
    method: string,
    description: string,
    options: { retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super('channel_error', `${method} failed: ${description}`, { cause: options.cause });
    this.kind = kind;
    this.method = method;
    this.retryAfterMs = options.retryAfterMs;
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

/** A failure the model should read and can react to (bad table, unknown column, …). */
export class ToolError extends SatchelError {
  constructor(message: string) {
    super('tool_error', message);
  }
}
