/**
 * Wire helpers of the fake model server: the OpenAI and Gemini stream events for a scripted
 * reply, the SSE writer (with its faults), error bodies, and request parsing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Per-response state: `closed` flips when the connection goes away or the response ends. */
export interface Ctx {
  res: ServerResponse;
  closed: boolean;
  /** The server cut the connection on purpose (a `drop` fault): not a client abort. */
  dropped: boolean;
  /** Streamed: when the first line after the stream's head was written (`preciseNow`). */
  firstContentAt?: number;
}

/** `Date.now()`'s clock to a fraction of a millisecond: the fakes' timestamps for benchmarks. */
export const preciseNow = () => performance.timeOrigin + performance.now();

/**
 * A reply as stream events: `head` and `body` carry the content, `tail` the finish reason
 * and usage. A truncated stream is `head` plus part of `body`; `extra` makes the content of
 * a never-ending trickle.
 */
export interface StreamEvents {
  head: object[];
  body: object[];
  tail: object[];
  /** The event that carries one more word and no finish reason. */
  extra(word: string): object;
}

/** How the SSE writer misbehaves, from the scripted reply. */
export interface StreamFaults {
  chunkDelayMs?: number | undefined;
  hang?: boolean | undefined;
  truncateAfter?: number | undefined;
  resetAfter?: number | undefined;
  malformed?: 'sse' | 'body' | undefined;
  trickle?: boolean | undefined;
}

/** What a `malformed: 'sse'` stream sends in place of its second event. */
export const BROKEN_SSE_DATA = '{"choices": [{"delta": {"content": "cut';
/** What a `malformed: 'body'` reply sends in place of JSON or SSE. */
export const GARBAGE_BODY = '<html><body>502 Bad Gateway</body></html>';
/** Gap between the words of a trickle stream unless `chunkDelayMs` says otherwise. */
const TRICKLE_DELAY_MS = 200;

/** Splits text into ~n pieces on word boundaries (or by characters when `chars`), losslessly. */
export function splitPieces(text: string, n = 3, chars = false): string[] {
  if (!text) return [];
  const units = chars ? [...text] : text.split(/(?<=\s)/);
  const size = Math.ceil(units.length / n);
  const out: string[] = [];
  for (let i = 0; i < units.length; i += size) out.push(units.slice(i, i + size).join(''));
  return out;
}

/** Waits `ms` (Infinity = forever) or until the response closes, whichever comes first. */
export function pause(ctx: Ctx, ms: number): Promise<void> {
  if (ms <= 0 || ctx.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      // A long stream pauses once per chunk: leave no listener behind.
      ctx.res.off('close', done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    ctx.res.once('close', done);
  });
}

/** The data lines of a stream, in order, with the faults applied (trickle: endless). */
function* dataLines(events: StreamEvents, faults: StreamFaults): Generator<string> {
  const content = [...events.head, ...events.body];
  if (faults.trickle) {
    yield* content.map((e) => JSON.stringify(e));
    for (let i = 1; ; i++) yield JSON.stringify(events.extra(`w${i} `));
  }
  const cutAfter = faults.resetAfter ?? faults.truncateAfter;
  if (cutAfter !== undefined) {
    const kept = [...events.head, ...events.body.slice(0, cutAfter)];
    yield* kept.map((e) => JSON.stringify(e));
    return;
  }
  const all = [...content, ...events.tail].map((e) => JSON.stringify(e));
  if (faults.malformed === 'sse') all.splice(1, 0, BROKEN_SSE_DATA);
  yield* all;
}

/**
 * Writes a reply as server-sent events. `done` ends an OpenAI-style stream with [DONE]; a
 * truncated, broken-off or trickling stream never gets it, and a reset one ends with its
 * connection destroyed (a TCP reset) once what it sent has been handed to the socket.
 */
export async function streamSse(
  ctx: Ctx,
  events: StreamEvents,
  faults: StreamFaults,
  done: boolean,
): Promise<void> {
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  if (faults.malformed === 'body') return void ctx.res.end(GARBAGE_BODY);
  // The head goes out even when no line follows it: the reset comes mid-response.
  if (faults.resetAfter !== undefined) await write(ctx, '');
  const delay = faults.chunkDelayMs ?? (faults.trickle ? TRICKLE_DELAY_MS : 0);
  let index = 0;
  for (const line of dataLines(events, faults)) {
    if (ctx.closed) return;
    if (index > 0) await pause(ctx, delay);
    if (ctx.closed) return;
    const written = write(ctx, `data: ${line}\n\n`);
    // A stream about to be reset waits for each line to leave, so what it sent arrives.
    if (faults.resetAfter !== undefined) await written;
    if (index++ === events.head.length) ctx.firstContentAt ??= preciseNow();
    if (faults.hang) return pause(ctx, Number.POSITIVE_INFINITY);
  }
  if (ctx.closed) return;
  if (faults.resetAfter !== undefined) return reset(ctx);
  const finished = done && faults.truncateAfter === undefined;
  ctx.res.end(finished ? 'data: [DONE]\n\n' : undefined);
}

/** Writes `text`; resolves once it is handed to the socket (or failed to be). */
function write(ctx: Ctx, text: string): Promise<void> {
  return new Promise((resolve) => ctx.res.write(text, () => resolve()));
}

/**
 * Cuts the connection mid-response as a proxy or a crashed upstream does: a TCP reset, so
 * the client sees ECONNRESET, "aborted" or "terminated", never a clean end.
 */
function reset(ctx: Ctx): void {
  ctx.dropped = true;
  ctx.res.socket?.resetAndDestroy();
}

/** A whole (non-streamed) JSON reply; `truncate` cuts it in half, `malformed` sends garbage. */
export function sendBody(
  res: ServerResponse,
  body: unknown,
  faults: { truncate?: boolean; malformed?: boolean } = {},
): void {
  const json = JSON.stringify(body);
  const text = faults.malformed
    ? GARBAGE_BODY
    : faults.truncate
      ? json.slice(0, json.length / 2)
      : json;
  res.writeHead(200, { 'content-type': 'application/json' }).end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const errorInfo: Record<number, [status: string, type: string]> = {
  400: ['INVALID_ARGUMENT', 'invalid_request_error'],
  401: ['UNAUTHENTICATED', 'authentication_error'],
  403: ['PERMISSION_DENIED', 'permission_error'],
  404: ['NOT_FOUND', 'not_found_error'],
  429: ['RESOURCE_EXHAUSTED', 'rate_limit_exceeded'],
  503: ['UNAVAILABLE', 'server_error'],
};

/**
 * An error in the provider's format. `retryAfter` (seconds) goes into a Retry-After header,
 * and for Gemini also into a RetryInfo detail, as Google's APIs send it; a 429 says 1 s
 * unless told otherwise.
 */
export function sendError(
  res: ServerResponse,
  provider: 'openai' | 'groq' | 'gemini',
  status: number,
  retryAfter?: number,
): void {
  const [gStatus, type] = errorInfo[status] ?? ['INTERNAL', 'server_error'];
  const message = `fake ${provider} error ${status}`;
  const wait = retryAfter ?? (status === 429 ? 1 : undefined);
  if (wait !== undefined) res.setHeader('retry-after', String(wait));
  const details =
    wait === undefined
      ? {}
      : {
          details: [
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${wait}s` },
          ],
        };
  const body =
    provider === 'gemini'
      ? { error: { code: status, message, status: gStatus, ...details } }
      : { error: { message, type, code: type } };
  sendJson(res, status, body);
}

/**
 * A refused key as each provider answers it: OpenAI and Groq 401 `invalid_api_key`; Gemini
 * 400 INVALID_ARGUMENT with an ErrorInfo detail whose reason is API_KEY_INVALID.
 */
export function sendKeyError(res: ServerResponse, provider: 'openai' | 'groq' | 'gemini'): void {
  if (provider === 'gemini') {
    sendJson(res, 400, {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
          },
        ],
      },
    });
    return;
  }
  sendJson(res, 401, {
    error: {
      message: 'Incorrect API key provided.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    },
  });
}

/** A provider's model list in its own shape (OpenAI and Groq: `data`; Gemini: `models`). */
export function modelList(
  provider: 'openai' | 'groq' | 'gemini',
  models: Record<'openai' | 'groq' | 'gemini', string[]>,
): unknown {
  if (provider === 'gemini')
    return {
      models: models.gemini.map((name) => ({
        name: `models/${name}`,
        displayName: name,
        supportedGenerationMethods: ['generateContent'],
      })),
    };
  return {
    object: 'list',
    data: models[provider].map((id) => ({ id, object: 'model', created: 0, owned_by: provider })),
  };
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseJson(raw: Buffer) {
  try {
    return raw.length ? JSON.parse(raw.toString('utf8')) : {};
  } catch {
    return { raw: raw.toString('utf8') };
  }
}

export interface MultipartBody {
  fields: Record<string, string>;
  file: { filename: string; size: number; contentType: string; data: Buffer } | undefined;
}

/** Minimal multipart/form-data parser: text fields plus the (single) file part's metadata. */
export function parseMultipart(raw: Buffer, contentType: string): MultipartBody {
  const out: MultipartBody = { fields: {}, file: undefined };
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) return out;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let start = raw.indexOf(delimiter);
  while (start !== -1) {
    const next = raw.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = raw.subarray(start + delimiter.length + 2, next - 2); // skip CRLF after/before
    start = next;
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) continue;
    const head = part.subarray(0, split).toString('utf8');
    const data = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    if (filename === undefined) {
      out.fields[name] = data.toString('utf8');
    } else {
      const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? 'application/octet-stream';
      out.file = { filename, size: data.length, contentType: type.trim(), data: Buffer.from(data) };
    }
  }
  return out;
}
