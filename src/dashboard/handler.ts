import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpMount, HttpRoute, TokenVia } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import { MAX_DAYS } from '../usage/days.ts';
import type { UsageOverview } from '../usage/overview.ts';
import { cookieName, crossSite, loopbackHost, presentedToken, sessionCookie } from './auth.ts';
import type { Asset } from './page.ts';
import { signInPage } from './sign-in.ts';

/** One route the server answers (core/edge.ts: an edge's mount lists its own). */
export type Route = HttpRoute;

/**
 * Routes another part of satchel serves on the dashboard's server (an edge's: the web chat),
 * behind the same host check, token and same-origin check. The security headers are set on
 * `response` already.
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

/**
 * What the sign-in page needs, served without the token: nothing in them is private
 * (base.css is the dashboard's and the chat's shared style).
 */
const OPEN_ASSETS = new Set(['/base.css', '/sign-in.js', '/sign-in.css']);

/** Nothing from elsewhere: the page runs on its own script, style and `/api/usage`. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; " +
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; " +
    "frame-ancestors 'none'",
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
const html = (status: number, body: string): Reply => ({
  status,
  type: 'text/html; charset=utf-8',
  body,
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
 * The dashboard's request handler, the one router of the server. Every answer carries the
 * security headers (set here, before anything else). A request that may change something
 * (any method but GET and HEAD) must come from the page itself (`crossSite`), whatever token
 * it carries. `/healthz` and the other `open` routes answer without a token; everything else
 * needs one: `?token=` once (answered with a cookie and a redirect that drops the token from
 * the address bar), then the cookie or a Bearer header. A request without a valid token gets
 * 401 and no data. `routes` lists every route, the mounts' too.
 */
export function createHandler(deps: HandlerDeps) {
  const table: Entry[] = [
    ...(deps.health ? [{ route: { method: 'GET', path: '/healthz', open: true } as const }] : []),
    { route: { method: 'GET', path: '/api/usage' } },
    ...[...deps.assets.keys()].map((path) => ({
      route: { method: 'GET', path, ...(OPEN_ASSETS.has(path) ? { open: true } : {}) } as const,
    })),
    ...(deps.mounts ?? []).flatMap((mount) => mount.routes.map((route) => ({ route, mount }))),
  ];
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    let reply: Reply | Mounted;
    try {
      reply = route(deps, table, request);
      if (typeof reply === 'function') {
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
      ...reply.headers,
      'content-type': reply.type,
      'content-length': Buffer.byteLength(reply.body),
    });
    response.end(request.method === 'HEAD' ? undefined : reply.body);
  };
  return Object.assign(handler, {
    routes: table.map((entry) => entry.route) as readonly Route[],
  });
}

/** A route, and the mount that answers it (none: the dashboard's own). */
interface Entry {
  route: Route;
  mount?: Mount;
}

/** A request a mount answers itself, once the token is checked. */
type Mounted = (response: ServerResponse) => void;

const matches = (route: Route, path: string) =>
  route.path.endsWith('/*') ? path.startsWith(route.path.slice(0, -1)) : route.path === path;

function route(
  deps: HandlerDeps,
  table: readonly Entry[],
  request: IncomingMessage,
): Reply | Mounted {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (!loopbackHost(request)) return text(403, 'Forbidden host');
  const read = request.method === 'GET' || request.method === 'HEAD';
  const via: TokenVia = request.headers.authorization === undefined ? 'cookie' : 'bearer';
  const forged = read ? undefined : crossSite(request, via);
  if (forged) return text(403, forged);
  const found = table.filter((entry) => matches(entry.route, url.pathname));
  const entry = found.find((e) => e.route.method === (read ? 'GET' : request.method));
  /** The cookie again, when it signed this request in: it lasts 30 days from now. */
  let renew: string | undefined;

  if (!entry?.route.open) {
    const checked = authenticate(deps, request, url);
    const denied = checked && 'status' in checked ? checked : undefined;
    if (checked && 'renew' in checked) renew = checked.renew;
    // A page a person opens shows how to sign in; anything else gets the 401 text.
    if (denied?.status === 401 && entry?.route.page)
      return html(401, signInPage(url.searchParams.has('token')));
    if (denied) return denied;
  }
  if (!entry) {
    if (found.length === 0) return text(404, 'Not found');
    const methods = new Set(found.map((e) => (e.route.method === 'GET' ? 'GET, HEAD' : 'POST')));
    return text(405, 'Method not allowed', { allow: [...methods].join(', ') });
  }
  const { mount } = entry;
  if (mount)
    return (response) => {
      if (renew) response.setHeader('set-cookie', renew);
      mount.handle(request, response, via);
    };
  const reply = ownRoute(deps, url);
  return renew ? { ...reply, headers: { ...reply.headers, 'set-cookie': renew } } : reply;
}

/** The dashboard's own routes, once the request is let in. */
function ownRoute(deps: HandlerDeps, url: URL): Reply {
  if (url.pathname === '/healthz' && deps.health) {
    // A supervisor reads the status: 503 when something is wrong.
    const body = deps.health() as { ok?: unknown };
    return json(body, body.ok === false ? 503 : 200);
  }
  if (url.pathname === '/api/usage') return usage(deps, url);
  const asset = deps.assets.get(url.pathname);
  return asset ? { status: 200, ...asset } : text(404, 'Not found');
}

/**
 * Undefined when the request carries the token in a Bearer header, `{renew}` (the cookie to
 * set again) when it came in its cookie; else a redirect that trades `?token=` for the
 * cookie, or 401.
 */
function authenticate(
  deps: HandlerDeps,
  request: IncomingMessage,
  url: URL,
): Reply | { renew: string } | undefined {
  const cookie = cookieName(request.socket.localPort ?? 0);
  const queryToken =
    request.method === 'GET' || request.method === 'HEAD' ? url.searchParams.get('token') : null;
  if (queryToken !== null) {
    if (!deps.check(queryToken)) return UNAUTHORIZED;
    url.searchParams.delete('token');
    return text(303, 'Signed in', {
      'set-cookie': sessionCookie(cookie, queryToken),
      location: `${url.pathname}${url.search}`,
    });
  }
  if (!deps.check(presentedToken(request, cookie))) return UNAUTHORIZED;
  // Signed in by the cookie: it lasts another 30 days from now (renewed on use).
  if (request.headers.authorization === undefined)
    return { renew: sessionCookie(cookie, presentedToken(request, cookie)!) };
  return undefined;
}

function usage(deps: HandlerDeps, url: URL): Reply {
  const raw = url.searchParams.get('days');
  const days = raw === null ? undefined : Number(raw);
  if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= MAX_DAYS))
    return text(400, `days must be a whole number from 1 to ${MAX_DAYS}`);
  return json(deps.usage(days));
}
