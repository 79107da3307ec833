import http from 'node:http';
import https from 'node:https';
import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';

/** Statuses whose response has no body (a Response refuses one for them). */
const NULL_BODY = new Set([204, 205, 304]);

const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * The `fetch` the model SDKs are given: a request with a text body (every chat call — its
 * JSON) goes out through node:http(s) on Node's keep-alive agents, anything else through
 * the built-in fetch. The built-in fetch builds a WHATWG Request and streams the body through
 * web streams before it writes a byte; for a chat call that cost about 0.3 ms of CPU a
 * request more than this, on the path between a message and its model call.
 *
 * What the SDKs rely on holds as with the built-in fetch: the response streams (a
 * `Response` over the socket), an abort through `signal` ends the request or its body with
 * the signal's reason, and a request that cannot reach the host fails with
 * `TypeError('fetch failed')` carrying the cause. Redirects are not followed (the APIs do not
 * redirect); a compressed body is decoded.
 */
export const httpFetch: typeof fetch = (input, init) => {
  const body = init?.body;
  const textBody = body === undefined || body === null || typeof body === 'string';
  if (!textBody || !(typeof input === 'string' || input instanceof URL))
    return globalThis.fetch(input, init);
  return new Promise((resolve, reject) => {
    const url = new URL(input);
    const { signal } = init ?? {};
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      { method: init?.method ?? 'GET', headers, ...(signal ? { signal } : {}) },
      (response) => {
        const status = response.statusCode ?? 0;
        const answer = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
            answer.append(name, one);
        }
        const meta = { status, statusText: response.statusMessage ?? '', headers: answer };
        if (NULL_BODY.has(status)) {
          response.resume(); // frees the socket for the next request
          resolve(new Response(null, meta));
          return;
        }
        const decode = DECODERS[String(response.headers['content-encoding']).toLowerCase()];
        // pipeline passes an abort or a cut connection on to the decoded stream.
        const stream = decode ? pipeline(response, decode(), () => undefined) : response;
        resolve(new Response(Readable.toWeb(stream) as ReadableStream, meta));
      },
    );
    request.on('error', (error) =>
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error })),
    );
    request.end(body ?? undefined);
  });
};
