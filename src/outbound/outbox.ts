import PQueue from 'p-queue';
import { type Clock, sleep } from '../core/clock.ts';
import { TelegramApiError } from '../core/errors.ts';
import type { Channel, ChatAction, Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { OutboxRepo, OutboxRow } from '../store/outbox-repo.ts';
import { composeText, type OutboundText, type TextPart } from './compose.ts';

export interface OutboxDeps {
  repo: OutboxRepo;
  channel: Channel;
  clock: Clock;
  log: Logger;
  /** All chats together stay under this many Telegram calls per second. */
  globalRatePerSecond?: number;
  /** Waits between tries after a 5xx or network error; its length + 1 is the number of tries. */
  retryDelaysMs?: readonly number[];
}

/**
 * The only way anything reaches a chat. One queue per chat (concurrency 1) keeps a chat's
 * messages in the order they were produced; one global limiter keeps every call together
 * under Telegram's rate. Text is written to the `outbox` table before it is sent and marked
 * with its message id after, so a restart sends what was not sent and nothing twice.
 */
export function createOutbox(deps: OutboxDeps) {
  const { repo, channel, clock, log } = deps;
  const retryDelays = deps.retryDelaysMs ?? [500, 2000];
  const limiter = new PQueue({
    interval: Math.ceil(1000 / (deps.globalRatePerSecond ?? 25)),
    intervalCap: 1,
  });
  const chats = new Map<number, PQueue>();

  const queueFor = (chatId: number): PQueue => {
    let queue = chats.get(chatId);
    if (!queue) {
      queue = new PQueue({ concurrency: 1 });
      chats.set(chatId, queue);
    }
    return queue;
  };

  /** Calls Telegram through the limiter, waiting out flood waits and retrying transient errors. */
  async function call<T>(what: string, to: Address, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await limiter.add(fn);
      } catch (error) {
        if (!(error instanceof TelegramApiError)) throw error;
        if (error.isFloodWait) {
          // The whole chat queue waits: this task holds it, and resumes with the refused call.
          const waitMs = (error.retryAfterSec ?? 1) * 1000;
          log.warn(
            { event: 'tg_flood_wait', chatId: to.chatId, method: error.method, waitMs },
            'flood wait',
          );
          await sleep(clock, waitMs);
          attempt--;
          continue;
        }
        const delay = retryDelays[attempt];
        if (!error.transient || delay === undefined) throw error;
        log.warn(
          { event: 'tg_send_retry', chatId: to.chatId, what, attempt: attempt + 1, err: error },
          'retrying',
        );
        await sleep(clock, delay);
      }
    }
  }

  async function deliver(row: OutboxRow): Promise<void> {
    const to: Address = {
      platform: 'tg',
      chatId: row.chatId,
      ...(row.threadId === null ? {} : { threadId: row.threadId }),
    };
    const part = JSON.parse(row.payload) as TextPart;
    const keyboard = part.keyboard ? { keyboard: part.keyboard } : {};
    try {
      const sent = await call('sendMessage', to, async () => {
        try {
          return await channel.sendText(to, part.html, { html: true, ...keyboard });
        } catch (error) {
          if (!(error instanceof TelegramApiError) || !error.isParseError) throw error;
          log.warn(
            { event: 'tg_parse_fallback', chatId: to.chatId, outboxId: row.id },
            'HTML refused; sending plain',
          );
          return channel.sendText(to, part.plain, { html: false, ...keyboard });
        }
      });
      repo.markSent(row.id, sent.messageId, clock.now());
    } catch (error) {
      const final = error instanceof TelegramApiError && !error.transient;
      repo.markAttempt(row.id, String((error as Error).message), final);
      log.error(
        { event: 'tg_send_failed', chatId: to.chatId, outboxId: row.id, err: error },
        'send failed',
      );
    }
  }

  function dispatch(ids: readonly number[]): Promise<void> {
    const tasks = ids.map((id) => {
      const row = repo.get(id);
      if (row?.status !== 'pending') return Promise.resolve();
      return queueFor(row.chatId).add(() => deliver(row));
    });
    return Promise.all(tasks).then(() => undefined);
  }

  return {
    /** Writes a message's parts to the outbox table (call inside a transaction to tie it to other writes). */
    write(to: Address, message: OutboundText): number[] {
      const now = clock.now();
      return composeText(message).map((part) => repo.insert(to, 'text', part, now));
    },

    /** Sends written rows in order; resolves when each was sent or given up on. */
    dispatch,

    /** write + dispatch. */
    send(to: Address, message: OutboundText): Promise<void> {
      return dispatch(this.write(to, message));
    },

    /** A chat action rides the chat's queue; its failure is logged, never blocks a reply. */
    chatAction(to: Address, action: ChatAction): Promise<void> {
      return queueFor(to.chatId).add(async () => {
        try {
          await limiter.add(() => channel.sendChatAction(to, action));
        } catch (error) {
          log.debug(
            { event: 'tg_chat_action_failed', chatId: to.chatId, err: error },
            'chat action failed',
          );
        }
      });
    },

    /** Answers a button press; like a chat action, a failure is logged and nothing more. */
    async answerCallback(callbackId: string, text?: string): Promise<void> {
      try {
        await limiter.add(() => channel.answerCallback(callbackId, text));
      } catch (error) {
        log.debug({ event: 'tg_callback_answer_failed', err: error }, 'callback answer failed');
      }
    },

    /** Sends every row left unsent by an earlier run, in the order written. */
    resumeUnsent(): Promise<void> {
      return dispatch(repo.unsent().map((row) => row.id));
    },

    /** Resolves when every chat queue is empty and idle. */
    async idle(): Promise<void> {
      await Promise.all([...chats.values()].map((q) => q.onIdle()));
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
