import { sql } from 'drizzle-orm';
import type { Clock } from '../core/clock.ts';
import { type Db, transactionOf } from '../store/client.ts';
import { usageEvents } from '../store/schema.ts';
import type { Calendar } from './calendar.ts';
import type { ModelCatalog } from './catalog.ts';
import { audioCost, searchCost, tokenCost, ttsCost } from './prices.ts';

export type UsageKind = 'llm' | 'stt' | 'vision' | 'search' | 'tts';

/** Who a paid call was made for. */
export interface UsageScope {
  pack: string | null;
  chatId: string | null;
  threadId: string | null;
  sessionId: string | null;
  turnId: string | null;
  /** The job whose run made the call (null or absent for a person's turn). */
  jobId?: string | null;
  /** The person the call was made for (`people.id`, SPEC §19). */
  person?: string | null | undefined;
  /** The edge's platform of the conversation (`recent_turns.channel`). */
  channel?: string | null | undefined;
}

export interface PaidCall {
  kind: UsageKind;
  provider: string;
  model: string;
  scope: UsageScope;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  audioSeconds?: number;
  images?: number;
  /** Characters spoken (`tts`), which its price is per million of. */
  characters?: number;
  /** The cost the provider reported for the call (an OpenAI-compatible router's `usage.cost`). */
  costUsd?: number | undefined;
  latencyMs: number;
  ok: boolean;
  error?: string;
}

/**
 * The ledger: one `usage_events` row per paid call, successful or not. The calendar day is
 * taken in the configured time zone, so "today" means the user's today. A row counts as a
 * call (`counted`) when the call succeeded or reported usage; the others stay as attempts.
 */
export function createLedger(deps: {
  db: Db;
  clock: Clock;
  calendar: Calendar;
  catalog: ModelCatalog;
  /** Removes secrets from the stored error text. */
  redact?: (text: string) => string;
}) {
  const { db, clock } = deps;
  const redact = deps.redact ?? ((text: string) => text);
  const { dayOf } = deps.calendar;
  const insert = prepareInsert(db);

  /** The call's cost at the catalog's price, or null when the catalog has none. */
  function priceOf(call: PaidCall, tokens: Parameters<typeof tokenCost>[1]): number | null {
    const entry = deps.catalog.lookup(call.provider, call.model);
    if (call.kind === 'stt') return audioCost(entry, call.audioSeconds ?? 0);
    if (call.kind === 'search') return searchCost(entry);
    if (call.kind === 'tts') return ttsCost(entry, call.characters ?? 0);
    return tokenCost(entry, tokens);
  }

  /** Rows `recordSoon` took, written at the end of the task (or before any read: `flush`). */
  const pending: { call: PaidCall; ts: number }[] = [];

  /**
   * Writes the rows `recordSoon` took, in one transaction; a no-op when there are none. A
   * write that fails keeps them, and throws to the caller (a read of the ledger, a booking).
   */
  function flush(): void {
    if (pending.length === 0) return;
    writeAll(pending.map(({ call, ts }) => rowOf(call, ts)));
    pending.length = 0;
  }
  const transaction = transactionOf(db);
  const writeAll = (rows: readonly RowValues[]) =>
    transaction(() => {
      for (const row of rows) insert.run(row);
    });

  function rowOf(call: PaidCall, ts: number): RowValues {
    const tokens = {
      inputTokens: call.inputTokens ?? 0,
      cachedInputTokens: call.cachedInputTokens ?? 0,
      outputTokens: call.outputTokens ?? 0,
    };
    const cost = call.costUsd ?? priceOf(call, tokens);
    const audioSeconds = call.audioSeconds ?? 0;
    const images = call.images ?? 0;
    const characters = call.characters ?? 0;
    const used = tokens.inputTokens + tokens.outputTokens + audioSeconds + images + characters > 0;
    return {
      ts,
      day: dayOf(ts),
      kind: call.kind,
      provider: call.provider,
      model: call.model,
      ...call.scope,
      jobId: call.scope.jobId ?? null,
      person: call.scope.person ?? null,
      channel: call.scope.channel ?? null,
      ...tokens,
      audioSeconds,
      images,
      characters,
      costUsd: cost,
      priceKnown: cost !== null,
      latencyMs: call.latencyMs,
      ok: call.ok,
      error: call.error === undefined ? null : redact(call.error),
      // A call counts when something came back: refused, failed or stopped with nothing
      // back, it was no call the provider served (schema.ts, `counted`).
      counted: call.ok || used,
    };
  }

  return {
    /** Books a paid call now (after any rows `recordSoon` still holds, which go first). */
    record(call: PaidCall): void {
      flush();
      insert.run(rowOf(call, clock.now()));
    },

    /**
     * Books a paid call at the end of the current task: a model's answer goes on to its
     * reply first, and the row is written before anything else runs (I/O, timers). A read
     * of the ledger in the same task calls `flush` first (the running totals do), and so
     * does shutdown. Its time is taken now.
     */
    recordSoon(call: PaidCall): void {
      pending.push({ call, ts: clock.now() });
      if (pending.length === 1)
        setImmediate(() => {
          // After shutdown closed the database, flush already wrote what there was.
          if ((db.$client as { open?: boolean }).open === false) return;
          try {
            flush();
          } catch {
            // Kept: the next read or booking writes them, and its caller hears the failure
            // (a timer's throw would end the process).
          }
        });
    },

    flush,
  };
}

type RowValues = Record<(typeof WRITTEN)[number], unknown>;

export type Ledger = ReturnType<typeof createLedger>;

/** The columns `record` writes; any other column of the table keeps its default. */
const WRITTEN = [
  'ts',
  'day',
  'kind',
  'provider',
  'model',
  'pack',
  'chatId',
  'threadId',
  'sessionId',
  'turnId',
  'jobId',
  'person',
  'channel',
  'inputTokens',
  'cachedInputTokens',
  'outputTokens',
  'audioSeconds',
  'images',
  'characters',
  'costUsd',
  'priceKnown',
  'latencyMs',
  'ok',
  'error',
  'counted',
] as const satisfies readonly (keyof typeof usageEvents.$inferInsert)[];

/**
 * The ledger row's insert, prepared once: it is written after every model call, between the
 * model's answer and the reply, where building it anew cost a tenth of a millisecond.
 */
function prepareInsert(db: Db) {
  const values = Object.fromEntries(WRITTEN.map((c) => [c, sql.placeholder(c)]));
  return db
    .insert(usageEvents)
    .values(values as unknown as typeof usageEvents.$inferInsert)
    .prepare();
}
