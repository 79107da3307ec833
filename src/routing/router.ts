import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { SessionRepo, SessionRow } from '../store/session-repo.ts';

/** `tg:<chatId>[:<threadId>]:<pack>` — a session belongs to one address and one pack. */
export function sessionKey(address: Address, pack: string): string {
  const thread = address.threadId === undefined ? '' : `:${address.threadId}`;
  return `${address.platform}:${address.chatId}${thread}:${pack}`;
}

export interface Route {
  pack: string;
  session: SessionRow;
}

/**
 * Route resolution and session validation. A route's session is reused only when its stored
 * key matches the key derived from the address and the pack; otherwise the route is stale
 * (logged), and the right session is found or minted and the route repointed. Switching
 * packs therefore never carries another pack's history.
 */
export function createRouter(deps: { sessions: SessionRepo; clock: Clock; log: Logger }) {
  const { sessions, clock, log } = deps;

  const bind = (address: Address, pack: string, session: SessionRow): Route => {
    sessions.saveRoute(address, { activePack: pack, sessionId: session.id }, clock.now());
    return { pack, session };
  };

  /** The latest open session of `address` and `pack`, or a new one. */
  const openSession = (address: Address, pack: string): SessionRow => {
    const key = sessionKey(address, pack);
    const found = sessions.latestSession(key);
    return found && found.closedAt === null
      ? found
      : sessions.createSession({ key, pack, address }, clock.now());
  };

  return {
    /** The pack bound to an address, if any. */
    boundPack(address: Address): string | undefined {
      return sessions.route(address)?.activePack ?? undefined;
    },

    /** The session for `address` with `pack` active, binding the route to it. */
    resolve(address: Address, pack: string): Route {
      const key = sessionKey(address, pack);
      const route = sessions.route(address);
      if (route?.sessionId) {
        const current = sessions.session(route.sessionId);
        if (current?.key === key && current.closedAt === null && route.activePack === pack)
          return { pack, session: current };
        if (current?.key !== key)
          log.warn(
            {
              event: 'tg_route_session_stale',
              address: route.address,
              routeSession: route.sessionId,
              expectedKey: key,
            },
            'route pointed at another session; repointing',
          );
      }
      return bind(address, pack, openSession(address, pack));
    },

    /**
     * The session for `address` and `pack` without touching the route: a skill command of
     * another pack runs there, and the conversation stays with its bound pack.
     */
    visit(address: Address, pack: string): Route {
      return { pack, session: openSession(address, pack) };
    },

    /** Starts a fresh session for `address` and `pack`; the old one is closed. */
    fresh(address: Address, pack: string, summary?: string): Route {
      const route = sessions.route(address);
      if (route?.sessionId) sessions.closeSession(route.sessionId, clock.now());
      const key = sessionKey(address, pack);
      const session = sessions.createSession(
        { key, pack, address, ...(summary === undefined ? {} : { summary }) },
        clock.now(),
      );
      return bind(address, pack, session);
    },
  };
}

export type Router = ReturnType<typeof createRouter>;
