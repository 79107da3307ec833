import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { type Address, addressKey } from '../core/types.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { SessionRepo, SessionRow, SessionTaint, VoiceSetting } from '../store/session-repo.ts';

/** The pack a conversation uses when no pack is installed. */
export const CORE_PACK = 'core';

/** `tg:<chatId>[:<threadId>]:<pack>` — a session belongs to one address and one pack. */
export function sessionKey(address: Address, pack: string): string {
  return `${addressKey(address)}:${pack}`;
}

/** A conversation bound to an installed pack. */
export interface BoundConversation {
  platform: string;
  chatId: string;
  threadId: string | null;
  pack: string;
}

/** Why a route is bound: a person's (or a topic name's) `pick`, or a `turn` answering. */
type How = 'pick' | 'turn';

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
export function createRouter(deps: {
  sessions: SessionRepo;
  packs: Pick<PackRegistry, 'list' | 'get' | 'byLabel'>;
  clock: Clock;
  log: Logger;
  /** A conversation was bound to a pack (the scheduler gives it the pack's jobs). */
  onBound?: (address: Address, pack: string) => void;
  /**
   * The pack a conversation with no binding starts with (DEFAULT_PACK, resolved against the
   * loaded packs: routing/default-pack.ts); undefined: the picker when several are loaded.
   */
  defaultPack?: string | undefined;
}) {
  const { sessions, packs, clock, log } = deps;

  /**
   * Binds `address` to `pack` and `session`. `how`: a `pick` (the picker, a topic named after
   * the pack, /topics) makes it the pack's own; a `turn` that binds an unbound conversation
   * to the default pack (with several loaded) records that it came through the default.
   */
  const bind = (address: Address, pack: string, session: SessionRow, how: How): Route => {
    const before = sessions.route(address);
    const viaDefault =
      how === 'pick'
        ? false
        : before?.activePack === pack
          ? before.viaDefault
          : !before?.activePack && pack === deps.defaultPack && packs.list().length >= 2;
    // A route that already says this is not written again (nor its `updated_at` moved).
    if (
      before?.activePack !== pack ||
      before.sessionId !== session.id ||
      before.viaDefault !== viaDefault
    )
      sessions.saveRoute(
        address,
        { activePack: pack, sessionId: session.id, viaDefault },
        clock.now(),
      );
    if (before?.activePack !== pack) deps.onBound?.(address, pack);
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

  const boundPack = (address: Address): string | undefined =>
    sessions.route(address)?.activePack ?? undefined;

  /**
   * The session for `address` with `pack` active, binding the route to it. `how` is
   * `pick` when a person (or a topic's name) chose the pack, `turn` when a turn resolves
   * the pack that answers.
   */
  function resolve(address: Address, pack: string, how: How = 'turn'): Route {
    const key = sessionKey(address, pack);
    const route = sessions.route(address);
    if (route?.sessionId) {
      const current = sessions.session(route.sessionId);
      if (
        current?.key === key &&
        current.closedAt === null &&
        route.activePack === pack &&
        !(how === 'pick' && route.viaDefault)
      )
        return { pack, session: current };
      if (current?.key !== key) {
        // A pack switch leaves the route on the previous pack's own session: expected, so
        // debug. Any other mismatch means the route was corrupted or hand-edited: warn.
        const switched =
          route.activePack !== null &&
          route.activePack !== pack &&
          current?.key === sessionKey(address, route.activePack);
        const fields = {
          event: 'tg_route_session_stale',
          address: route.address,
          routeSession: route.sessionId,
          expectedKey: key,
        };
        if (switched) log.debug(fields, 'pack switched; repointing route');
        else log.warn(fields, 'route pointed at another session; repointing');
      }
    }
    return bind(address, pack, openSession(address, pack), how);
  }

  return {
    boundPack,

    /** The pack a conversation with no binding starts with; undefined: the picker. */
    defaultPack: deps.defaultPack,

    /**
     * The pack bound here as its own (picked, or a topic named after it), not through
     * DEFAULT_PACK: a forum topic with one is that pack's workspace (SPEC §12).
     */
    ownPack(address: Address): string | undefined {
      const route = sessions.route(address);
      return route?.activePack && !route.viaDefault ? route.activePack : undefined;
    },

    /**
     * The pack that answers in a conversation: the bound one (while it is installed), the
     * only installed one, CORE_PACK when none is, the pack its forum topic is named after,
     * else DEFAULT_PACK; undefined when the user must pick.
     */
    activePack(address: Address, topicName?: string): string | undefined {
      const all = packs.list();
      const bound = boundPack(address);
      if (bound && (packs.get(bound) || (bound === CORE_PACK && all.length === 0))) return bound;
      if (all.length === 0) return CORE_PACK;
      if (all.length === 1) return all[0]!.name;
      const named = topicName ? packs.byLabel(topicName)?.name : undefined;
      return named ?? deps.defaultPack;
    },

    /**
     * A forum topic not bound yet whose name (quoted in a message) names a pack is bound to
     * it as the pack's own, before its turn: it is that pack's workspace, not a conversation
     * of the default pack (SPEC §2 step 6, §12).
     */
    claimTopic(address: Address, topicName: string | undefined): void {
      if (address.threadId === undefined || topicName === undefined) return;
      if (boundPack(address) !== undefined) return;
      const named = packs.byLabel(topicName)?.name;
      if (named) resolve(address, named, 'pick');
    },

    /** The chat model picked with /model for this chat or topic, if any. */
    modelPick(address: Address): string | undefined {
      return sessions.route(address)?.model ?? undefined;
    },

    /** Picks the chat model for this chat or topic; null goes back to the default. */
    pickModel(address: Address, ref: string | null): void {
      sessions.saveRouteSettings(address, { model: ref }, clock.now());
    },

    /** Whether answers here end with the usage footer (/usage footer on). */
    usageFooter(address: Address): boolean {
      return sessions.route(address)?.usageFooter ?? false;
    },

    setUsageFooter(address: Address, on: boolean): void {
      sessions.saveRouteSettings(address, { usageFooter: on }, clock.now());
    },

    /** /queue here (`steer` or `followup`); undefined follows QUEUE_MODE. */
    queueMode(address: Address): 'steer' | 'followup' | undefined {
      return sessions.route(address)?.queueMode ?? undefined;
    },

    setQueueMode(address: Address, mode: 'steer' | 'followup'): void {
      sessions.saveRouteSettings(address, { queueMode: mode }, clock.now());
    },

    /** This chat's or topic's own /voice setting; undefined: VOICE_REPLY decides. */
    voiceReply(address: Address): VoiceSetting | undefined {
      return sessions.route(address)?.voiceReply ?? undefined;
    },

    setVoiceReply(address: Address, setting: VoiceSetting): void {
      sessions.saveRouteSettings(address, { voiceReply: setting }, clock.now());
    },

    /** The session a conversation uses now, if it has one. */
    currentSession(address: Address): string | undefined {
      return sessions.route(address)?.sessionId ?? undefined;
    },

    /** A session's row (for /status: its taint). */
    session: (sessionId: string): SessionRow | undefined => sessions.session(sessionId),

    /** How many messages a session holds (for /status and /compact). */
    sessionSize: (sessionId: string): number => sessions.messageCount(sessionId),

    /** The packs that have a forum topic bound in a chat. */
    packsWithTopics(chatId: string): Set<string> {
      return new Set(
        sessions
          .routesInChat(chatId)
          .flatMap((r) =>
            r.threadId !== null && r.activePack && !r.viaDefault ? [r.activePack] : [],
          ),
      );
    },

    /**
     * Every conversation with each installed pack bound to it (the scheduler's delivery
     * targets, SPEC §8): the active pack, and every pack that answered there before — a chat
     * session of its, open or closed (`SessionRepo.boundPacks`). Switching packs keeps the
     * others bound, so their jobs keep running there.
     */
    boundConversations(): BoundConversation[] {
      return sessions.boundPacks().filter((bound) => packs.get(bound.pack) !== undefined);
    },

    /**
     * Frees a conversation from its pack (a topic renamed away from it): the next prompt
     * there finds its pack again, or gets the picker. Its sessions stay.
     */
    unbind(address: Address): void {
      sessions.saveRoute(address, { activePack: null, sessionId: null }, clock.now());
    },

    resolve,

    /**
     * The session for `address` and `pack` without touching the route: a skill command of
     * another pack runs there, a reply to a job's message of another pack is answered there,
     * a job's message is added there, and the conversation stays with its active pack. A
     * session made here binds the pack too (its jobs run here: `boundConversations`).
     */
    visit(address: Address, pack: string): Route {
      const open = sessions.latestSession(sessionKey(address, pack));
      if (open) return { pack, session: open };
      const session = openSession(address, pack);
      deps.onBound?.(address, pack);
      return { pack, session };
    },

    /**
     * Starts a fresh session for `address` and `pack`; the old one is closed. A session that
     * continues the old one (/compact) starts from its summary and keeps its taint.
     */
    fresh(
      address: Address,
      pack: string,
      carried?: { summary: string; taint: SessionTaint | undefined },
    ): Route {
      const route = sessions.route(address);
      if (route?.sessionId) sessions.closeSession(route.sessionId, clock.now());
      const key = sessionKey(address, pack);
      const session = sessions.createSession({ key, pack, address, ...carried }, clock.now());
      return bind(address, pack, session, 'turn');
    },
  };
}

export type Router = ReturnType<typeof createRouter>;
