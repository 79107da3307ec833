import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { union } from 'drizzle-orm/sqlite-core';
import { createRecent } from '../core/recent.ts';
import { type Address, addressKey, type ChatMessage, type Role } from '../core/types.ts';
import type { Db } from './client.ts';
import { conversationRoutes, messages, sessions } from './schema.ts';
import { indexSoon } from './search-index.ts';

export type SessionRow = typeof sessions.$inferSelect;
export type StoredMessage = ChatMessage & {
  id: number;
  turnId: string;
  sourceKey?: string;
  /** When it was stored (ms): a user message is stamped with it (agent/time-stamp.ts). */
  createdAt: number;
};
export type RouteRow = typeof conversationRoutes.$inferSelect;
/** A conversation's own /voice setting (null: VOICE_REPLY decides). */
export type VoiceSetting = NonNullable<RouteRow['voiceReply']>;

export interface NewMessage {
  sessionId: string;
  turnId: string;
  role: Role;
  content: string;
  toolCalls?: ChatMessage['toolCalls'];
  toolCallId?: string;
  sourceKey?: string;
}

/** Routes, sessions and their messages in the core database. */
export function createSessionRepo(db: Db, redact: (text: string) => string = (text) => text) {
  const queries = prepareTurnQueries(db);
  const recent = createRecentHistories();
  /**
   * Routes read in the current task: a turn asks its conversation's route five or six times
   * before its model call (the pack, the model, the session, the badge, the footer), and
   * what a turn reads of it is written only through this repository, which forgets what it
   * writes (the person's last message time, `store/person-activity.ts`, is read by no one
   * here). At the end of the task all are forgotten, so a route written by another process
   * or module is read afresh by the next task.
   */
  const routesNow = new Map<string, RouteRow | undefined>();
  /** Sessions read in the current task, kept the same way (the router, then the agent). */
  const sessionsNow = new Map<string, SessionRow | undefined>();
  const forgetAll = () => {
    routesNow.clear();
    sessionsNow.clear();
  };
  const forgetSoon = () => {
    if (routesNow.size === 0 && sessionsNow.size === 0) setImmediate(forgetAll);
  };

  return {
    route(address: Address): RouteRow | undefined {
      const key = addressKey(address);
      if (routesNow.has(key)) return routesNow.get(key);
      const row = queries.route.get({ address: key });
      forgetSoon();
      routesNow.set(key, row);
      return row;
    },

    saveRoute(
      address: Address,
      fields: { activePack: string | null; sessionId: string | null; viaDefault?: boolean },
      now: number,
    ): void {
      routesNow.delete(addressKey(address));
      queries.saveRoute.run({
        address: addressKey(address),
        platform: address.platform,
        chatId: address.chatId,
        threadId: address.threadId ?? null,
        activePack: fields.activePack,
        sessionId: fields.sessionId,
        viaDefault: fields.viaDefault === true ? 1 : 0,
        updatedAt: now,
      });
    },

    /**
     * Saves a conversation's own settings (its /model pick, its usage footer, its /voice) on its route,
     * making the route when it has none yet (no pack bound, no session).
     */
    saveRouteSettings(
      address: Address,
      settings: {
        model?: string | null;
        usageFooter?: boolean;
        queueMode?: RouteRow['queueMode'];
        voiceReply?: VoiceSetting | null;
      },
      now: number,
    ): void {
      routesNow.delete(addressKey(address));
      db.insert(conversationRoutes)
        .values({
          address: addressKey(address),
          platform: address.platform,
          chatId: address.chatId,
          threadId: address.threadId ?? null,
          activePack: null,
          sessionId: null,
          ...settings,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: conversationRoutes.address,
          set: { ...settings, updatedAt: now },
        })
        .run();
    },

    /**
     * Every conversation with each pack bound to it (SPEC §8): its active pack, and every pack
     * that has a chat session there, open or closed — the packs that were active there before,
     * or whose skill command ran there. A switch, `/new` or an unbound topic ends none of them.
     */
    boundPacks(): BoundPack[] {
      const { platform, chatId, threadId, activePack } = conversationRoutes;
      const used = db
        .selectDistinct({ platform, chatId, threadId, pack: sessions.pack })
        .from(sessions)
        .innerJoin(conversationRoutes, eq(conversationRoutes.address, sessions.address))
        .where(eq(sessions.kind, 'chat'));
      const active = db
        .select({ platform, chatId, threadId, pack: sql<string>`${activePack}` })
        .from(conversationRoutes)
        .where(isNotNull(activePack));
      return union(used, active).all();
    },

    /** Every route in a chat (its private chat or General topic, and its forum topics). */
    routesInChat(chatId: string): RouteRow[] {
      return db
        .select()
        .from(conversationRoutes)
        .where(eq(conversationRoutes.chatId, chatId))
        .all();
    },

    messageCount(sessionId: string): number {
      return (
        db.select({ n: count() }).from(messages).where(eq(messages.sessionId, sessionId)).get()
          ?.n ?? 0
      );
    },

    session(id: string): SessionRow | undefined {
      if (sessionsNow.has(id)) return sessionsNow.get(id);
      const row = queries.session.get({ id });
      forgetSoon();
      sessionsNow.set(id, row);
      return row;
    },

    closeSession(id: string, now: number): void {
      sessionsNow.delete(id);
      db.update(sessions).set({ closedAt: now }).where(eq(sessions.id, id)).run();
    },

    /** The newest open session with this key, if any. */
    latestSession(key: string): SessionRow | undefined {
      return db
        .select()
        .from(sessions)
        .where(and(eq(sessions.key, key), eq(sessions.kind, 'chat'), isNull(sessions.closedAt)))
        .orderBy(desc(sessions.createdAt), desc(sessions.id))
        .get();
    },

    /**
     * The session of a scheduled job (kind `job`, one per job): the job's own history, so a
     * daily job remembers yesterday's run but never sees the chat's.
     */
    jobSession(key: string, pack: string, address: Address, now: number): SessionRow {
      const found = db
        .select()
        .from(sessions)
        .where(and(eq(sessions.key, key), eq(sessions.kind, 'job'), isNull(sessions.closedAt)))
        .orderBy(desc(sessions.createdAt))
        .get();
      return found ?? this.createSession({ key, pack, address, kind: 'job' }, now);
    },

    createSession(
      fields: {
        key: string;
        pack: string;
        address: Address;
        summary?: string;
        kind?: 'chat' | 'job';
        /** A session that continues a tainted one (/compact) keeps its taint (SPEC §17). */
        taint?: SessionTaint | undefined;
      },
      now: number,
    ): SessionRow {
      const row = {
        id: randomUUID(),
        key: fields.key,
        pack: fields.pack,
        address: addressKey(fields.address),
        kind: fields.kind ?? ('chat' as const),
        summary: fields.summary ?? null,
        summaryUpto: null,
        taintedAt: fields.taint?.since ?? null,
        taintSources: fields.taint ? fields.taint.sources.join('\n') : null,
        createdAt: now,
        closedAt: null,
      };
      db.insert(sessions).values(row).run();
      return row;
    },

    /** Stores a message; a message whose `sourceKey` is already stored is not stored again. */
    addMessage(message: NewMessage, now: number): void {
      queries.addMessage.run({
        sessionId: message.sessionId,
        turnId: message.turnId,
        role: message.role,
        // A tool's error may quote a URL with a secret in it: never store or replay one.
        content: redact(message.content),
        toolCalls: message.toolCalls ? JSON.stringify(message.toolCalls) : null,
        toolCallId: message.toolCallId ?? null,
        sourceKey: message.sourceKey ?? null,
        createdAt: now,
      });
      indexSoon(db.$client);
    },

    /**
     * The session's messages after `afterId` (all when undefined), oldest first, with ids.
     * Read through `recent`: a session read before costs only the rows added since.
     */
    history(sessionId: string, afterId?: number | null): StoredMessage[] {
      return recent.read(
        sessionId,
        afterId ?? 0,
        (after) => queries.history.all({ sessionId, afterId: after }).map(toStored),
        (id) => queries.messageExists.get({ id }) !== undefined,
      );
    },

    /**
     * Marks the session tainted by `sources` (SPEC §17): the first time sets when; later
     * sources are added to the ones it names. It lasts until the session is closed (/new).
     */
    taint(sessionId: string, sources: readonly string[], now: number): void {
      const row = queries.session.get({ id: sessionId });
      if (!row) return;
      const known = taintOf(row)?.sources ?? [];
      const all = [...known, ...sources.filter((s) => !known.includes(s))].slice(0, MAX_SOURCES);
      if (row.taintedAt !== null && all.length === known.length) return;
      sessionsNow.delete(sessionId);
      db.update(sessions)
        .set({ taintedAt: row.taintedAt ?? now, taintSources: all.join('\n') })
        .where(eq(sessions.id, sessionId))
        .run();
    },

    /** Records that `summary` now stands for the session's messages up to `upto`. */
    saveSummary(sessionId: string, summary: string, upto: number | null): void {
      sessionsNow.delete(sessionId);
      db.update(sessions)
        .set({ summary, summaryUpto: upto })
        .where(eq(sessions.id, sessionId))
        .run();
    },
  };
}

export type SessionRepo = ReturnType<typeof createSessionRepo>;

/** A pack bound to a conversation (see `boundPacks`). */
export interface BoundPack {
  platform: string;
  chatId: string;
  threadId: string | null;
  pack: string;
}

/** Since when a session has read untrusted content, and which sources (SPEC §17). */
export interface SessionTaint {
  since: number;
  sources: readonly string[];
}

/** A session names at most this many sources (the first ones): enough to say why it asks. */
const MAX_SOURCES = 20;

/** The session's taint; undefined while it is clean. */
export function taintOf(
  row: Pick<SessionRow, 'taintedAt' | 'taintSources'>,
): SessionTaint | undefined {
  if (row.taintedAt === null) return undefined;
  return { since: row.taintedAt, sources: row.taintSources?.split('\n').filter(Boolean) ?? [] };
}

type MessageRow = typeof messages.$inferSelect;

function toStored(row: MessageRow): StoredMessage {
  return Object.freeze({
    id: row.id,
    turnId: row.turnId,
    role: row.role,
    content: row.content,
    createdAt: row.createdAt,
    ...(row.toolCalls ? { toolCalls: JSON.parse(row.toolCalls) } : {}),
    ...(row.toolCallId ? { toolCallId: row.toolCallId } : {}),
    ...(row.sourceKey ? { sourceKey: row.sourceKey } : {}),
  });
}

/** Sessions whose history is kept in memory, the most recently read ones. */
const RECENT_SESSIONS = 32;

/**
 * The histories of the sessions read last. Messages are added with ids that grow
 * (AUTOINCREMENT: never reused) and never changed; only a session's last exchange may be
 * taken back (the web chat's regenerate, edit and Retry: its tail deleted). So a history
 * read before whose last message is still there is brought up to date by reading the rows
 * after its last id — also rows another process wrote — and one whose last message is gone
 * is read again whole. A turn's history read went from every message of the session (0.6 ms at 60, more
 * as a session grows) to the one or two added since the last turn. Messages are frozen:
 * they are shared by every reader.
 */
function createRecentHistories() {
  const kept = createRecent<string, { afterId: number; messages: StoredMessage[] }>(
    RECENT_SESSIONS,
  );

  return {
    read(
      sessionId: string,
      afterId: number,
      rowsAfter: (id: number) => StoredMessage[],
      exists: (id: number) => boolean,
    ): StoredMessage[] {
      const known = kept.get(sessionId);
      const last = known?.messages.at(-1);
      if (known?.afterId === afterId && (last === undefined || exists(last.id))) {
        known.messages.push(...rowsAfter(known.messages.at(-1)?.id ?? afterId));
        return [...known.messages];
      }
      const messages = rowsAfter(afterId);
      kept.set(sessionId, { afterId, messages });
      return [...messages];
    },
  };
}

/**
 * The queries every turn makes, prepared once: building a query with drizzle and compiling
 * its SQL costs about 50 µs each time, and a turn makes several before its model call.
 */
function prepareTurnQueries(db: Db) {
  const p = sql.placeholder;
  return {
    route: db
      .select()
      .from(conversationRoutes)
      .where(eq(conversationRoutes.address, p('address')))
      .prepare(),
    session: db
      .select()
      .from(sessions)
      .where(eq(sessions.id, p('id')))
      .prepare(),
    /** Whether a message is still stored (a taken-back exchange's is not). */
    messageExists: db
      .select({ id: messages.id })
      .from(messages)
      .where(eq(messages.id, p('id')))
      .prepare(),
    /** A conversation bound to a pack and session (made when it has no route yet). */
    saveRoute: db
      .insert(conversationRoutes)
      .values({
        address: p('address'),
        platform: p('platform'),
        chatId: p('chatId'),
        threadId: p('threadId'),
        activePack: p('activePack'),
        sessionId: p('sessionId'),
        viaDefault: p('viaDefault'),
        updatedAt: p('updatedAt'),
      })
      .onConflictDoUpdate({
        target: conversationRoutes.address,
        set: {
          activePack: sql`excluded.active_pack`,
          sessionId: sql`excluded.session_id`,
          viaDefault: sql`excluded.via_default`,
          updatedAt: sql`excluded.updated_at`,
        },
      })
      .prepare(),
    /** Message ids start at 1, so `afterId` 0 means the whole session. */
    history: db
      .select()
      .from(messages)
      .where(and(eq(messages.sessionId, p('sessionId')), gt(messages.id, p('afterId'))))
      .orderBy(asc(messages.id))
      .prepare(),
    addMessage: db
      .insert(messages)
      .values({
        sessionId: p('sessionId'),
        turnId: p('turnId'),
        role: p('role'),
        content: p('content'),
        toolCalls: p('toolCalls'),
        toolCallId: p('toolCallId'),
        sourceKey: p('sourceKey'),
        createdAt: p('createdAt'),
      })
      .onConflictDoNothing()
      .prepare(),
  };
}
