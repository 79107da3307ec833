/**
 * The fake Telegram server's wire: Bot API replies, how a request's parameters are read (query,
 * JSON, urlencoded or multipart uploads) and how an answer is written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { boundaryOf, coerceField, multipartParams } from './multipart.ts';

// biome-ignore lint/suspicious/noExplicitAny: arbitrary Bot API JSON, inspected by tests
export type Json = any;
export type Params = Record<string, Json>;

export type Reply =
  | { ok: true; result: Json }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };

export const ok = (result: Json): Reply => ({ ok: true, result });
export const fail = (error_code: number, description: string): Reply => ({
  ok: false,
  error_code,
  description,
});
export const unixNow = () => Math.floor(Date.now() / 1000);
/** `Date.now()`'s clock to a fraction of a millisecond: the fakes' timestamps for benchmarks. */
export const preciseNow = () => performance.timeOrigin + performance.now();

/** A predicate given by a test, where a throw means "no match". */
export function safely(fn: () => boolean): boolean {
  try {
    return fn();
  } catch {
    return false;
  }
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const body = JSON.stringify(reply);
  res.writeHead(reply.ok ? 200 : reply.error_code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The call's parameters from the query string and the body, typed as the Bot API reads them. */
export async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  const params: Params = {};
  for (const [k, v] of url.searchParams) params[k] = coerceField(k, v);
  if (body.length === 0) return params;
  if (type.includes('application/json')) {
    return { ...params, ...(JSON.parse(body.toString('utf8')) as Params) };
  }
  const boundary = boundaryOf(type);
  if (type.includes('multipart/form-data') && boundary) {
    return { ...params, ...multipartParams(body, boundary) };
  }
  for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params[k] = coerceField(k, v);
  return params;
}
