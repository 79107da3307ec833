import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpMount } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import { MAX_DAYS, type UsageOverview } from '../usage/overview.ts';
import { cookieName, loopbackHost, presentedToken, sessionCookie } from './auth.ts';
import type { Asset } from './page.ts';

/**
 * Routes another part of satchel serves on the dashboard's server (an edge's: the web chat),
 * behind the same host check and token. The security headers are set on `response` already.
 */
export type Mount = HttpMount;

export interface HandlerDeps {
  assets: ReadonlyMap<string, Asset>;
  /** Routes served beside the dashboard's own (any method). */
  mounts?: readonly Mount[] | undefined;
  usage(days: number | undefined): UsageOverview;
  /** Constant-time token check. */
  check(candidate: string | undefined): boolean;
  health?: (() => object) | undefined;
  log: Logger;
}

interface Reply {
  status: number;
  type: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

/** Nothing from elsewhere: the page runs on its own script, style and `/api/usage`. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

const TEXT = 'text/plain; charset=utf-8';
const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  type: TEXT,
  body: `${body}\n`,
  ...(headers ? { headers } : {}),
});
const json = (body: unknown, status = 200): Reply => ({
  status,
  type: 'application/json; charset=utf-8',
  body: `${JSON.stringify(body)}\n`,
});

const UNAUTHORIZED = text(
  401,
  'Unauthorized: open the dashboard with the URL satchel printed at start-up ' +
    '(it ends in ?token=…), or send "Authorization: Bearer <DASHBOARD_TOKEN>".',
);

/**
 * The dashboard's request handler. `/healthz` answers without a token (it shows no usage);
 * everything else needs one: `?token=` once (answered with a cookie and a redirect that
 * drops the token from the address bar), then the cookie or a Bearer header. A request
 * without a valid token gets 401 and no data.
 */
export function createHandler(deps: HandlerDeps) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    let reply: Reply | Mounted;
    try {
      reply = route(deps, request);
      if (typeof reply === 'function') {
        for (const [name, value] of Object.entries(SECURITY_HEADERS))
          response.setHeader(name, value);
        reply(response);
        return;
      }
    } catch (error) {
      deps.log.error({ event: 'dashboard_error', err: error }, 'dashboard request failed');
      reply = text(500, 'Internal error');
    }
    if (reply.status === 401)
      deps.log.debug({ event: 'dashboard_auth_denied' }, 'dashboard request without a valid token');
    response.writeHead(reply.status, {
      ...SECURITY_HEADERS,
      ...reply.headers,
      'content-type': reply.type,
      'content-length': Buffer.byteLength(reply.body),
    });
    response.end(request.method === 'HEAD' ? undefined : reply.body);
  };
}

/** A request a mount answers itself, once the token is checked. */
type Mounted = (response: ServerResponse) => void;

function route(deps: HandlerDeps, request: IncomingMessage): Reply | Mounted {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const mount = deps.mounts?.find(
    (m) => url.pathname === m.path || url.pathname.startsWith(`${m.path}/`),
  );
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (!read && !mount) return text(405, 'Method not allowed', { allow: 'GET, HEAD' });
  if (!loopbackHost(request)) return text(403, 'Forbidden host');
  if (url.pathname === '/healthz' && deps.health) {
    // A supervisor reads the status: 503 when something is wrong.
    const body = deps.health() as { ok?: unknown };
    return json(body, body.ok === false ? 503 : 200);
  }

  const cookie = cookieName(request.socket.localPort ?? 0);
  const queryToken = read ? url.searchParams.get('token') : null;
  if (queryToken !== null) {
    if (!deps.check(queryToken)) return UNAUTHORIZED;
    url.searchParams.delete('token');
    return text(303, 'Signed in', {
      'set-cookie': sessionCookie(cookie, queryToken),
      location: `${url.pathname}${url.search}`,
    });
  }
  if (!deps.check(presentedToken(request, cookie))) return UNAUTHORIZED;
  if (mount) {
    const via = request.headers.authorization === undefined ? 'cookie' : 'bearer';
    return (response) => mount.handle(request, response, via);
  }

  if (url.pathname === '/api/usage') return usage(deps, url);
  const asset = deps.assets.get(url.pathname);
  return asset ? { status: 200, ...asset } : text(404, 'Not found');
}

function usage(deps: HandlerDeps, url: URL): Reply {
  const raw = url.searchParams.get('days');
  const days = raw === null ? undefined : Number(raw);
  if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= MAX_DAYS))
    return text(400, `days must be a whole number from 1 to ${MAX_DAYS}`);
  return json(deps.usage(days));
}
