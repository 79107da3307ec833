import { ProviderError } from '../core/errors.ts';

/**
 * A 200 response that is not a whole answer: the stream ended (the server closed it, a proxy
 * cut it) before the provider said why it stopped. Thrown by the stream collectors and turned
 * into a transient ProviderError by the adapters' error mapping.
 */
export class IncompleteResponse extends Error {
  constructor(message = 'the stream ended before the answer was finished') {
    super(message);
    this.name = 'IncompleteResponse';
  }
}

/**
 * How the SDKs report a body they cannot parse: JSON.parse's SyntaxError (openai, groq-sdk,
 * @google/genai), or @google/genai's own wording for an event stream that breaks off.
 */
const UNPARSABLE = /Incomplete JSON segment|exception parsing stream chunk/i;

/**
 * How a connection cut while the answer streams surfaces: node:http's `Error('aborted')`
 * (ECONNRESET) under openai and groq-sdk, undici's `TypeError('terminated')` (its cause
 * UND_ERR_SOCKET "other side closed") under @google/genai, a stream pipeline's "Premature
 * close" behind a decompressor, or a socket error that reached the body as it is.
 */
const CUT_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const CUT_MESSAGE = /^(aborted|terminated|premature close)$/i;

/**
 * The connection broke while the response was read: a reset, a closed socket, a body that
 * ended mid-chunk. Only the error and its direct cause are looked at; an abort of our own
 * (the signal, an AbortError) is the caller's to recognize first.
 */
export function isCutConnection(error: unknown): boolean {
  if (!(error instanceof Error) || error.name === 'AbortError') return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CUT_CODES.has(code)) return true;
  if (CUT_MESSAGE.test(error.message)) return true;
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' && CUT_CODES.has(cause.code);
}

/**
 * A broken or cut-off 200 response as a transient ProviderError (another try may well get a
 * whole answer): a stream that ended early, a connection cut mid-stream, a body that does not
 * parse. Undefined for any other error.
 */
export function mapBrokenResponse(provider: string, error: unknown): ProviderError | undefined {
  if (isCutConnection(error)) {
    return new ProviderError(
      provider,
      `${provider} connection broke mid-answer: ${describe(error)}`,
      {
        transient: true,
        cause: error,
      },
    );
  }
  if (error instanceof IncompleteResponse) {
    return new ProviderError(provider, `${provider} answer broke off: ${error.message}`, {
      transient: true,
      cause: error,
    });
  }
  if (error instanceof SyntaxError || (error instanceof Error && UNPARSABLE.test(error.message))) {
    // No cause: the parser's message quotes the broken chunk, which is the model's text, and
    // causes are logged.
    return new ProviderError(provider, `${provider} sent a malformed response (${error.name})`, {
      transient: true,
    });
  }
  return undefined;
}

/** "aborted (ECONNRESET)": the message and, when it has one, the code. */
function describe(error: unknown): string {
  const { message, code } = error as Error & { code?: unknown };
  const cause = (error as Error).cause as { code?: unknown } | undefined;
  const named = typeof code === 'string' ? code : cause?.code;
  return typeof named === 'string' && named !== message ? `${message} (${named})` : message;
}

/**
 * The wait a provider asked for, from `retry-after-ms` (OpenAI) or `Retry-After` in seconds.
 * An HTTP-date Retry-After is ignored: it would need the wall clock, and the caller's own
 * backoff is a fine substitute.
 */
export function retryAfterFromHeaders(headers: Headers | undefined): number | undefined {
  const ms = nonNegative(headers?.get('retry-after-ms'));
  if (ms !== undefined) return ms;
  const seconds = nonNegative(headers?.get('retry-after'));
  return seconds === undefined ? undefined : Math.round(seconds * 1000);
}

function nonNegative(value: string | null | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The wait in a Google API error body: a `google.rpc.RetryInfo` detail such as
 * `{ "retryDelay": "30s" }`. Gemini sends no Retry-After header.
 */
export function retryAfterFromGoogleBody(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details as { retryDelay?: unknown }[]) {
    const match =
      typeof detail?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}
