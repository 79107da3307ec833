import { isIP } from 'node:net';
import { blockedKind } from '../tools/web/address-rules.ts';

/** The kinds of address that are this machine or the local network (SPEC §1). */
const LOCAL_KINDS = new Set(['loopback', 'private', 'link-local', 'unique-local']);

/**
 * Where a server at `baseUrl` runs when it is this machine or the local network —
 * "this machine" (loopback, `localhost`) or "your network" (private, link-local and
 * unique-local addresses, `.local` names) — else undefined (a public server, or no URL).
 * Judged from the URL alone: nothing is resolved.
 */
export function localServer(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return 'this machine';
  if (host.endsWith('.local')) return 'your network';
  if (isIP(host) === 0) return undefined;
  const kind = blockedKind(host);
  if (kind === undefined || !LOCAL_KINDS.has(kind.replace(/ \(inside.*$/, ''))) return undefined;
  return kind.startsWith('loopback') ? 'this machine' : 'your network';
}
