import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TokenVia } from '../core/edge.ts';

/**
 * The Host headers the dashboard answers to: a loopback name, optionally a port of digits,
 * and nothing else. Anything more is a DNS-rebinding attempt or a forged header
 * (`127.0.0.1:8080@evil.example`, `localhost.evil.example`).
 */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * A constant-time check of a presented token against the dashboard token. Both sides are
 * hashed first, so the comparison runs on equal-length buffers and takes the same time
 * whatever the presented token's length or content.
 */
export function tokenChecker(token: string): (candidate: string | undefined) => boolean {
  const expected = digest(token);
  return (candidate) => candidate !== undefined && timingSafeEqual(digest(candidate), expected);
}

/**
 * The session cookie's name. Cookies are not scoped by port, so two satchel homes on one
 * machine (two ports) would otherwise overwrite each other's cookie.
 */
export const cookieName = (port: number) => `satchel_dashboard_${port}`;

/** How long the cookie lasts after its last use (SPEC §16: 30 days, renewed on use). */
export const COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;

/**
 * The cookie set after a valid `?token=`, and again on each request it signs in (so it lasts
 * 30 days after the last use): script cannot read it, no other site sends it.
 */
export const sessionCookie = (name: string, token: string) =>
  `${name}=${encodeURIComponent(token)}; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict; Path=/`;

/** The token a request presents: an `Authorization: Bearer` header, else the cookie. */
export function presentedToken(request: IncomingMessage, cookie: string): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === cookie) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * Whether the request's Host is exactly this machine's loopback: the whole header, not its
 * first part (any port: an SSH tunnel's differs from the one satchel listens on).
 */
export function loopbackHost(request: IncomingMessage): boolean {
  return LOOPBACK_HOST.test(request.headers.host ?? '');
}

/**
 * Why a request that changes something may come from another site (undefined when it comes
 * from the page itself). Its `Origin` must be this server's own; without one, its
 * `Sec-Fetch-Site` must be `same-origin` or `none`. A request with neither header is no
 * browser's (every browser in use sends one of them on a POST), so it passes only with
 * the token in a Bearer header, which no other site can make a browser attach. Another
 * port on 127.0.0.1 is the same *site* (the SameSite cookie goes along), so the cookie alone
 * proves nothing.
 */
export function crossSite(request: IncomingMessage, via: TokenVia): string | undefined {
  const { origin } = request.headers;
  const site = request.headers['sec-fetch-site'];
  const refused = 'Cross-site requests are refused: this works only from the page itself.';
  if (origin !== undefined && origin !== `http://${request.headers.host}`) return refused;
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return refused;
  if (origin === undefined && site === undefined && via === 'cookie') return refused;
  return undefined;
}
