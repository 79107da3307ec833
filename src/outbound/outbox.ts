import { setMaxListeners } from 'node:events';
import type { Clock } from '../core/clock.ts';
import { ChannelError } from '../core/errors.ts';
import type { Channel, Logger } from '../core/ports.ts';
import { createSerialQueues } from '../core/serial-queues.ts';
import type { Address } from '../core/types.ts';
import type { OutboxRepo, OutboxRow } from '../store/outbox-repo.ts';
import type { OutboundText, TextPart } from './compose.ts';
import { degrade, type OutboundPayload } from './degrade.ts';
import { createDelivery } from './delivery.ts';
import { createGoneThreads } from './gone-threads.ts';
import { createLimiter, type Priority } from './limiter.ts';
import { createLive } from './live.ts';
import { createSenders, type RowPayload } from './senders.ts';
import { createWakeWaits } from './wake-waits.ts';

export interface OutboxDeps {
  repo: OutboxRepo;
  channel: Channel;
  clock: Clock;
  log: Logger;
  /** All chats together make at most this many calls in any one second. */
  globalRatePerSecond?: number;
  /** Waits between tries after a `transient` failure; its length + 1 is the number of tries. */
  retryDelaysMs?: readonly number[];
  /**
   * Waits between further rounds of tries while a row cannot be sent (the last one repeats).
   * The row stays at the head of its chat: later rows of that chat wait behind it.
   */
  stallDelaysMs?: readonly number[];
  /** Removes secrets from text that is stored (a network error names the request URL). */
  redact?: (text: string) => string;
  /**
   * A row or a live call (a streamed message, typing) was refused because its thread (a
   * forum topic) no longer exists: the channel sends no event for a deleted topic, so this
   * is how satchel learns of it.
   */
  threadGone?: (to: Address) => void;
  /** A row was delivered into a thread `threadGone` was told of: it exists after all. */
  threadBack?: (to: Address) => void;
}

export interface DispatchOptions {
  /** `stranger`: a reply to someone not on the allowlist, on its own small budget. */
  priority?: Priority;
}

const DEFAULT_STALL_DELAYS_MS = [5_000, 10_000, 20_000, 40_000, 60_000];

/**
 * The only way anything reaches a chat of one channel. Messages are written to the `outbox`
 * table (with the channel's `platform`) before they are sent and marked with their message
 * id after, so a restart sends what was not sent and nothing twice. One lane per chat keeps
 * a chat's messages in the order they were produced: a row the channel cannot take now
 * (`transient`) stays at the head of its chat and is tried again with backoff while the
 * process runs, and the chat's later rows wait behind it; any other refusal is final.
 * Typing, drafts and live edits are not stored (see live.ts). Reads only ChannelError kinds.
 */
export function createOutbox(deps: OutboxDeps) {
  const { repo, channel, clock, log } = deps;
  const redact = deps.redact ?? ((text: string) => text);
  // The channel's own event names (`tg_send_failed` for Telegram, SPEC §9).
  const sendFailed = `${channel.platform}_send_failed`;
  const sendRecovered = `${channel.platform}_send_recovered`;
  const stallDelays = deps.stallDelaysMs ?? DEFAULT_STALL_DELAYS_MS;
  const shutdown = new AbortController();
  // Every waiting row listens for shutdown: a busy bot has many at once, by design.
  setMaxListeners(0, shutdown.signal);
  const limiter = createLimiter({ clock, perWindow: deps.globalRatePerSecond ?? 25 });
  const delivery = createDelivery({
    limiter,
    clock,
    log,
    retryDelaysMs: deps.retryDelaysMs ?? [500, 2000],
    signal: shutdown.signal,
    platform: channel.platform,
  });
  const senders = createSenders(channel, log);
  const lanes = createSerialQueues<string>();
  const gone = createGoneThreads({ onGone: deps.threadGone, onBack: deps.threadBack });
  const live = createLive({ channel, delivery, senders, lanes, gone, closed: () => closed });
  /** Chats whose head row could not be sent, with the callers waiting on their rows. */
  const stalled = new Set<string>();
  const waiters = new Map<string, Set<(sent: boolean) => void>>();
  /** Rows queued in a lane now, so a row is never queued twice. */
  const queued = new Map<number, Promise<boolean>>();
  /** Where stalled chats wait for their next round; retryNow ends the waits early. */
  const stallWaits = createWakeWaits(clock, shutdown.signal);
  let closed = false;

  /** Sends one row; 'deferred' when the channel could not take it now (it stays pending). */
  async function attempt(row: OutboxRow, priority: Priority) {
    const to = addressOf(row);
    try {
      const sent = await delivery.required(
        to,
        () => senders.sendRow(to, JSON.parse(row.payload) as RowPayload, row.jobPack ?? undefined),
        priority,
      );
      markSent(row.id, sent.messageId);
      gone.delivered(to);
      return 'sent' as const;
    } catch (error) {
      if (shutdown.signal.aborted) return 'deferred' as const;
      const final = !(error instanceof ChannelError && error.kind === 'transient');
      repo.markAttempt(row.id, redact(String((error as Error).message)), final);
      if (final || !stalled.has(row.chatId))
        log.error(
          { event: sendFailed, chatId: row.chatId, outboxId: row.id, final, err: error },
          final ? 'send refused' : 'send failed; will retry',
        );
      gone.note(to, error);
      return final ? ('failed' as const) : ('deferred' as const);
    }
  }

  /** Records a delivery; after shutdown closed the database the row is sent again next start. */
  function markSent(id: number, messageId: string): void {
    try {
      repo.markSent(id, messageId, clock.now());
    } catch (error) {
      log.error({ event: 'outbox_mark_failed', outboxId: id, err: error }, 'could not mark sent');
    }
  }

  /** A chat whose head row is held back: everyone waiting on its rows hears "not yet". */
  function stall(chatId: string): void {
    stalled.add(chatId);
    for (const settle of waiters.get(chatId) ?? []) settle(false);
    waiters.delete(chatId);
  }

  /** Delivers a row, trying again with backoff for as long as the process runs. */
  async function deliver(id: number, priority: Priority): Promise<boolean> {
    for (let round = 0; !closed; round++) {
      const row = repo.get(id);
      if (row?.status !== 'pending') return row?.status === 'sent';
      const outcome = await attempt(row, priority);
      if (outcome !== 'deferred') {
        if (stalled.delete(row.chatId)) {
          log.info({ event: sendRecovered, chatId: row.chatId }, 'chat reachable again');
          // The channel takes messages again: the other stalled chats need not wait either.
          stallWaits.wakeAll();
        }
        return outcome === 'sent';
      }
      if (closed) break;
      stall(row.chatId);
      const delay = stallDelays[Math.min(round, stallDelays.length - 1)] ?? 60_000;
      // Woken because the channel answers again: a new failure backs off from the start.
      if (await stallWaits.wait(delay)) round = -1;
    }
    return false;
  }

  /**
   * Queues a row in its chat's lane; resolves when it was sent (true), refused for good, or
   * held back because its chat cannot be reached now (false: it is still delivered, in order).
   */
  function enqueue(id: number, priority: Priority): Promise<boolean> {
    const known = queued.get(id);
    if (known) return known;
    const row = repo.get(id);
    if (row?.status !== 'pending' || closed) return Promise.resolve(row?.status === 'sent');
    const { chatId } = row;
    const result = new Promise<boolean>((resolve) => {
      if (stalled.has(chatId)) resolve(false);
      else waiters.set(chatId, (waiters.get(chatId) ?? new Set()).add(resolve));
      lanes
        .add(chatId, () => deliver(id, priority))
        .catch((error: unknown) => {
          log.error({ event: 'outbox_failed', outboxId: id, err: error }, 'outbox lane failed');
          return false;
        })
        .then((sent) => {
          waiters.get(chatId)?.delete(resolve);
          queued.delete(id);
          resolve(sent);
        });
    });
    queued.set(id, result);
    return result;
  }

  /** Sends the rows in their chats' order; resolves whether all of them were sent. */
  function dispatch(ids: readonly number[], options: DispatchOptions = {}): Promise<boolean> {
    const tasks = ids.map((id) => enqueue(id, options.priority ?? 'message'));
    return Promise.all(tasks).then((sent) => sent.every(Boolean));
  }

  const insert = (to: Address, payload: RowPayload) => {
    if (to.platform !== channel.platform)
      throw new Error(`the ${channel.platform} outbox cannot send to a ${to.platform} address`);
    return repo.insert(to, payload.kind, payload, clock.now());
  };

  function writeParts(to: Address, parts: TextPart[]): number[] {
    return parts.map((part) => insert(to, { kind: 'text', part }));
  }

  /** Writes a text's parts as rows (call inside a transaction to tie them to other writes). */
  function write(to: Address, message: OutboundText): number[] {
    return writeParts(to, channel.render.text(message));
  }

  /** Writes a payload's rows; returns their ids and what was degraded, if anything. */
  function writePayload(to: Address, payload: OutboundPayload): { ids: number[]; note?: string } {
    const degraded = degrade(payload, channel);
    const p = degraded.payload;
    const note = degraded.note === undefined ? {} : { note: degraded.note };
    if (!p || p.kind === 'action') {
      if (p) void live.chatAction(to, p.action);
      return { ids: [], ...note };
    }
    if (p.kind === 'text') return { ids: write(to, p), ...note };
    const { caption, rest } = channel.render.caption(p.caption ?? '');
    const media = {
      kind: p.kind,
      source: p.source,
      ...(p.keyboard ? { keyboard: p.keyboard } : {}),
    };
    const ids = [
      insert(to, { kind: 'media', media, ...(caption ? { caption } : {}) }),
      ...writeParts(to, rest),
    ];
    return { ids, ...note };
  }

  return {
    ...live,
    /** How this outbox's channel renders text (streams render their chunks with it). */
    render: channel.render,
    /** How often a stream may update a reply on this channel (undefined: the default). */
    streamIntervalMs: channel.streamIntervalMs,
    write,
    writeParts,
    writePayload,

    /**
     * Records a message a stream showed, under the turn's `key`, so a turn replayed after a
     * crash edits it instead of sending its answer again (SPEC §12).
     */
    recordStreamed: (to: Address, key: string, messageId: string, part: TextPart): void =>
      repo.recordStreamed(to, key, part, messageId, clock.now()),

    /** The messages a stream under `key` showed in `to` before (a crashed run of the turn). */
    streamed: (to: Address, key: string) => repo.streamed(to, key),

    /** Writes an edit of a sent message to `part` (used to finish a streamed message). */
    writeEdit: (to: Address, messageId: string, part: TextPart): number =>
      insert(to, { kind: 'edit', messageId, part }),

    /** Writes the removal of a message the bot sent (a streamed part the final text dropped). */
    writeDelete: (to: Address, messageId: string): number =>
      insert(to, { kind: 'delete', messageId }),

    dispatch,

    /** write + dispatch; resolves whether every part was sent. */
    send: (to: Address, message: OutboundText, options?: DispatchOptions): Promise<boolean> =>
      dispatch(write(to, message), options),

    /** Sends every row of this channel left unsent by an earlier run, in the order written. */
    resumeUnsent: async (): Promise<void> => {
      await dispatch(repo.unsent(channel.platform).map((row) => row.id));
    },

    /**
     * The channel answers again (the ingress heard from it after an outage): chats held back
     * by a failed send try again now instead of at the end of their backoff wait. Cheap when
     * nothing is held back.
     */
    retryNow(): void {
      const woken = stallWaits.wakeAll();
      if (woken > 0)
        log.info({ event: 'outbox_retry_now', chats: woken }, 'channel reachable: retrying now');
    },

    /**
     * Shutdown: nothing new starts, waits (flood waits, backoff) end, and every caller waiting
     * on a row hears "not sent"; unsent rows stay pending for the next start.
     */
    close(): void {
      closed = true;
      shutdown.abort();
      for (const chatId of [...waiters.keys()]) stall(chatId);
    },

    /** Resolves when every chat lane is empty and idle. */
    idle: (): Promise<void> => lanes.idle(),
  };
}

export type ChannelOutbox = ReturnType<typeof createOutbox>;

function addressOf(row: OutboxRow): Address {
  return {
    platform: row.channel,
    chatId: row.chatId,
    ...(row.threadId === null ? {} : { threadId: row.threadId }),
  };
}
