import {
  and,
  asc,
  desc,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  max,
  ne,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { Address } from '../core/types.ts';
import type { Db } from './client.ts';
import { outbox } from './schema.ts';

export type OutboxRow = typeof outbox.$inferSelect;

/** Rows of the `outbox` table: written before a send, marked with the message id after. */
export function createOutboxRepo(db: Db) {
  const queries = prepareReplyQueries(db);
  /** The rows of one chat (any topic) that also meet `conditions`. */
  const inChat = (to: Pick<Address, 'platform' | 'chatId'>, ...conditions: SQL[]) =>
    db
      .select()
      .from(outbox)
      .where(and(eq(outbox.channel, to.platform), eq(outbox.chatId, to.chatId), ...conditions));

  return {
    /** Writes a pending row for `to`; the row records its channel (`to.platform`). */
    insert(to: Address, kind: string, payload: unknown, now: number): number {
      const row = queries.insert.get({
        channel: to.platform,
        chatId: to.chatId,
        threadId: to.threadId ?? null,
        kind,
        payload: JSON.stringify(payload),
        createdAt: now,
      });
      return row!.id;
    },

    get(id: number): OutboxRow | undefined {
      return queries.get.get({ id });
    },

    markSent(id: number, messageId: string | null, now: number): void {
      queries.markSent.run({ id, messageId, sentAt: now });
    },

    /** Records a failed attempt; `final` rows are never tried again (Telegram refused them). */
    markAttempt(id: number, error: string, final: boolean): void {
      const row = this.get(id);
      db.update(outbox)
        .set({
          attempts: (row?.attempts ?? 0) + 1,
          lastError: error,
          ...(final ? { status: 'failed' as const } : {}),
        })
        .where(eq(outbox.id, id))
        .run();
    },

    /**
     * Records a streamed message the channel already shows (sent, with its id), under the
     * turn's `stream` key: after a crash the replayed turn finds it and edits it.
     */
    recordStreamed(to: Address, stream: string, part: unknown, messageId: string, now: number) {
      db.insert(outbox)
        .values({
          channel: to.platform,
          chatId: to.chatId,
          threadId: to.threadId ?? null,
          kind: 'text',
          payload: JSON.stringify({ kind: 'text', part, stream }),
          status: 'sent',
          messageId,
          createdAt: now,
          sentAt: now,
        })
        .run();
    },

    /** The messages streamed under `stream` in `to`, in the order they were shown. */
    streamed(to: Address, stream: string): { messageId: string; text: string }[] {
      const rows = inChat(to, sql`json_extract(${outbox.payload}, '$.stream') = ${stream}`)
        .orderBy(asc(outbox.id))
        .all();
      return rows.flatMap((row) => {
        const part = (JSON.parse(row.payload) as { part?: { text?: unknown } }).part;
        return row.messageId !== null && typeof part?.text === 'string'
          ? [{ messageId: row.messageId, text: part.text }]
          : [];
      });
    },

    /**
     * What the bot last showed in message `messageId` of a chat (its latest sent or edit
     * row), with the row's topic; undefined when the outbox never sent it.
     */
    sentText(
      to: Pick<Address, 'platform' | 'chatId'>,
      messageId: string,
    ): { text: string; threadId: string | undefined } | undefined {
      const rows = inChat(to, eq(outbox.messageId, messageId), eq(outbox.status, 'sent'))
        .orderBy(desc(outbox.id))
        .limit(1)
        .all();
      const row = rows[0];
      const part = row && (JSON.parse(row.payload) as { part?: { plain?: unknown } }).part;
      if (!row || typeof part?.plain !== 'string') return undefined;
      return { text: part.plain, threadId: row.threadId ?? undefined };
    },

    /** Marks rows as the delivered answer of a job of `pack` (SPEC §8: a reply goes to it). */
    markJob(ids: readonly number[], pack: string): void {
      if (ids.length > 0)
        db.update(outbox)
          .set({ jobPack: pack })
          .where(inArray(outbox.id, [...ids]))
          .run();
    },

    /**
     * The pack whose job sent message `messageId` of a chat, if a job sent it (any of its
     * topics: an id is the chat's).
     */
    jobPackOf(to: Pick<Address, 'platform' | 'chatId'>, messageId: string): string | undefined {
      const row = inChat(to, eq(outbox.messageId, messageId), isNotNull(outbox.jobPack))
        .limit(1)
        .get();
      return row?.jobPack ?? undefined;
    },

    /** The id of the newest row of any chat (0 when there is none). */
    newestId(): number {
      return queries.newestId.get()?.id ?? 0;
    },

    /**
     * Whether `to` (its topic, not the whole chat) got a row after row `id`: a later message
     * went out there. Reads only the rows newer than `id`.
     */
    wroteAfter(to: Address, id: number): boolean {
      const thread =
        to.threadId === undefined ? isNull(outbox.threadId) : eq(outbox.threadId, to.threadId);
      return inChat(to, gt(outbox.id, id), thread).limit(1).all().length > 0;
    },

    /** The files pending rows send (a voice note's OGG): they must stay until sent. */
    pendingFiles(): Set<string> {
      const rows = db
        .select({
          path: sql<string | null>`json_extract(${outbox.payload}, '$.media.source.path')`,
        })
        .from(outbox)
        .where(and(eq(outbox.status, 'pending'), eq(outbox.kind, 'media')))
        .all();
      return new Set(rows.flatMap((row) => (row.path ? [row.path] : [])));
    },

    /** Unsent rows of one channel, in the order they were written. */
    unsent(channel: string): OutboxRow[] {
      return db
        .select()
        .from(outbox)
        .where(
          and(eq(outbox.channel, channel), ne(outbox.status, 'sent'), ne(outbox.status, 'failed')),
        )
        .orderBy(asc(outbox.id))
        .all();
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;

/**
 * The queries every reply makes (write, read back, mark sent, the newest row), prepared once: building a
 * query with drizzle and compiling its SQL costs about 50 µs each time.
 */
function prepareReplyQueries(db: Db) {
  const p = sql.placeholder;
  return {
    insert: db
      .insert(outbox)
      .values({
        channel: p('channel'),
        chatId: p('chatId'),
        threadId: p('threadId'),
        kind: p('kind'),
        payload: p('payload'),
        createdAt: p('createdAt'),
      })
      .returning({ id: outbox.id })
      .prepare(),
    get: db
      .select()
      .from(outbox)
      .where(eq(outbox.id, p('id')))
      .prepare(),
    markSent: db
      .update(outbox)
      .set({ status: 'sent', messageId: sql`${p('messageId')}`, sentAt: sql`${p('sentAt')}` })
      .where(eq(outbox.id, p('id')))
      .prepare(),
    newestId: db
      .select({ id: max(outbox.id) })
      .from(outbox)
      .prepare(),
  };
}
