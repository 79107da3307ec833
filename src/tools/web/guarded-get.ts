import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Clock } from '../../core/clock.ts';
import { ToolError } from '../tool.ts';
import { blockedKind } from './address-rules.ts';

/** What one `web_fetch` may cost (SPEC §13); tests pass small numbers. */
export interface WebLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const WEB_LIMITS: WebLimits = {
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
};

/** A host's addresses; injected in tests so they never touch real DNS. */
export type Resolve = (host: string) => Promise<string[]>;

export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface GuardDeps {
  /** WEB_FETCH_ALLOW_HOSTS: `host` or `host:port` entries that may be private. */
  allowHosts: readonly string[];
  resolve: Resolve;
  limits: WebLimits;
  clock: Clock;
}

export interface Fetched {
  url: string;
  /** The media type, lowercased, without parameters. */
  type: string;
  charset: string | undefined;
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * GETs `url` for web_fetch, never reaching a private address (SPEC §13). Before each
 * connection — the first and every redirect — the host is resolved and every address it
 * has is checked; the connection then goes to the address that was checked (a lookup that
 * returns it), so a DNS answer that changes between check and connect cannot slip through.
 * `accepts` sees the content type before the body is read: a type it refuses is never
 * downloaded. Every failure is a ToolError the model reads.
 */
export async function guardedGet(
  url: string,
  deps: GuardDeps,
  accepts: (type: string) => boolean,
  signal: AbortSignal,
): Promise<Fetched> {
  const { limits, clock } = deps;
  const timeout = new AbortController();
  const seconds = Math.round(limits.timeoutMs / 1000);
  const timer = clock.setTimeout(
    () => timeout.abort(new ToolError(`${url} did not answer within ${seconds} s`)),
    limits.timeoutMs,
  );
  const both = AbortSignal.any([signal, timeout.signal]);
  try {
    let current = parseTarget(url);
    for (let hop = 0; ; hop++) {
      const address = await checkedAddress(current, deps, both);
      const response = await request(current, address, both);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location) {
        response.destroy();
        if (hop >= limits.maxRedirects)
          throw new ToolError(`${url} redirects more than ${limits.maxRedirects} times`);
        current = parseTarget(new URL(location, current).href);
        continue;
      }
      return await readBody(current, response, deps.limits, accepts);
    }
  } catch (error) {
    if (timeout.signal.aborted && !signal.aborted) throw timeout.signal.reason;
    if (signal.aborted) throw signal.reason;
    if (error instanceof ToolError) throw error;
    throw new ToolError(`could not fetch ${url}: ${describe(error)}`);
  } finally {
    clock.clearTimeout(timer);
  }
}

/** Only http(s), and no user name or password in the URL. */
function parseTarget(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`"${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolError(`only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password)
    throw new ToolError('a URL with a user name or password is refused');
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');
const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

function allowed(url: URL, allowHosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  return allowHosts.some((entry) => entry === host || entry === `${host}:${portOf(url)}`);
}

/**
 * The address to connect to: the host's first address, after every one of them passed the
 * address rules (unless the host is allow-listed). An IP literal (the URL parser has
 * already turned `2130706433`, `0177.0.0.1` and `0x7f.1` into `127.0.0.1`) is its own.
 */
async function checkedAddress(url: URL, deps: GuardDeps, signal: AbortSignal): Promise<string> {
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await untilAborted(deps.resolve(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ToolError(`the host ${host} could not be found`);
    }
    if (addresses.length === 0) throw new ToolError(`the host ${host} could not be found`);
  }
  if (!allowed(url, deps.allowHosts)) {
    for (const address of addresses) {
      const kind = blockedKind(address);
      if (kind)
        throw new ToolError(
          `${url.href} is refused: ${host === address ? 'it is' : `${host} resolves to`} ${address}, a ${kind} address. web_fetch reaches only public addresses (the owner can allow a host in WEB_FETCH_ALLOW_HOSTS)`,
        );
    }
  }
  return addresses[0]!;
}

/** `promise`, or the signal's reason as soon as it aborts (a resolver may hang). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function request(url: URL, address: string, signal: AbortSignal): Promise<http.IncomingMessage> {
  const family = isIP(address);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: hostOf(url),
        port: portOf(url),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        agent: false,
        signal,
        headers: {
          'user-agent': 'satchel-web-fetch/1',
          accept: 'text/html,application/xhtml+xml,text/plain,text/markdown,application/json;q=0.9',
          'accept-encoding': 'gzip, deflate, br',
        },
        // Connect to the address that was checked, whatever DNS says now.
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all)
            (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
              null,
              [{ address, family }],
            );
          else callback(null, address, family);
        },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

async function readBody(
  url: URL,
  response: http.IncomingMessage,
  limits: WebLimits,
  accepts: (type: string) => boolean,
): Promise<Fetched> {
  const status = response.statusCode ?? 0;
  if (status >= 400 || status < 200) {
    response.destroy();
    throw new ToolError(`${url.href} answered ${status} ${response.statusMessage ?? ''}`.trim());
  }
  const [rawType = '', ...params] = String(response.headers['content-type'] ?? '').split(';');
  const type = rawType.trim().toLowerCase();
  if (!accepts(type)) {
    response.destroy();
    throw new ToolError(
      `${url.href} is ${type || 'of no stated type'}, which web_fetch does not read (it reads web pages, plain text, Markdown and JSON)`,
    );
  }
  const tooBig = () =>
    new ToolError(`${url.href} is larger than ${sizeText(limits.maxBytes)}; web_fetch stops there`);
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > limits.maxBytes) {
    response.destroy();
    throw tooBig();
  }
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  const decode = DECODERS[encoding];
  const stream: Readable = decode ? pipeline(response, decode(), () => undefined) : response;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > limits.maxBytes) {
      response.destroy();
      throw tooBig();
    }
    chunks.push(chunk as Buffer);
  }
  const charset = params
    .map((p) => /^\s*charset\s*=\s*"?([^";]+)"?/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  return { url: url.href, type, charset, body: Buffer.concat(chunks) };
}

function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET') return 'the connection was reset';
  if (code === 'ENOTFOUND') return 'the host could not be found';
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return 'its certificate was refused';
  return error instanceof Error ? error.message : String(error);
}
