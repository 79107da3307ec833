import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Update } from 'grammy/types';
import { closeAfterAnswer } from '../core/close-after-answer.ts';

/** Telegram's updates are a few KB; a file never comes inside one. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** A request refused before grammY sees it: the HTTP status to answer, and why. */
export class WebhookRequestError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

/** The shape of grammY's request handler (its type is not exported). */
interface HttpHandler {
  update: Promise<Update>;
  header: string | undefined;
  end(): void;
  respond(json: string): void;
  unauthorized(): void;
  handlerReturn?: undefined;
}

/**
 * grammY's node:http adapter, except for the body: at most `limit` bytes are read (a
 * larger Content-Length is refused before any), and only a JSON object is an update.
 * grammY checks the secret token before it asks for the update, so a stranger's body is
 * never read. A refusal rejects `update` with a WebhookRequestError.
 */
export function limitedHttpAdapter(limit = MAX_WEBHOOK_BODY_BYTES) {
  return (req: IncomingMessage, res: ServerResponse): HttpHandler => {
    const secret = req.headers[SECRET_HEADER];
    return {
      get update(): Promise<Update> {
        return readBody(req, limit).then(parseUpdate);
      },
      header: Array.isArray(secret) ? secret[0] : secret,
      end: () => void res.end(),
      respond: (json: string) =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(json),
      unauthorized: () => answer(req, res, 401, 'secret token is wrong'),
    };
  };
}

/**
 * Answers `status` at once. A body not read yet is not waited for (it may be huge, or a
 * stranger's): the connection is closed once the answer is out, what still arrives read and
 * dropped for a few seconds at most.
 */
export function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  text: string,
): void {
  if (res.headersSent) return;
  // A body refused part-read still arrives: closed at once, the socket would be reset and
  // the client could lose the answer with it (close-after-answer.ts).
  if (!req.complete) closeAfterAnswer(res);
  res.writeHead(status).end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new WebhookRequestError(413, `the request body is larger than ${limit} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function parseUpdate(body: Buffer): Update {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookRequestError(400, 'the request body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new WebhookRequestError(400, 'the request body is not a JSON object (an update)');
  return value as Update;
}
