import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import { nextTask } from '../core/background.ts';
import type { Clock } from '../core/clock.ts';
import type { NumberedInbox, NumberedItem } from '../core/inbox.ts';
import type { Logger } from '../core/ports.ts';
import { isFatalPollingError, TelegramApiError } from './errors.ts';
import { createOutageLog, retryUntilDone, TELEGRAM_BACKOFF, telegramOutageLog } from './retry.ts';
import { updateIdOf } from './update-schema.ts';

/** Long-poll timeout of getUpdates, in seconds. */
const POLL_TIMEOUT_SEC = 30;
/** How long a call may go unanswered (a host that accepts and never answers) before a retry. */
const ANSWER_SLACK_MS = 15_000;
const STORAGE_BACKOFF = { initialDelayMs: 500, maxDelayMs: 30_000 };
/** The update kinds satchel asks Telegram for (long polling and the webhook alike). */
export const ALLOWED_UPDATES = [
  'message',
  'edited_message',
  'callback_query',
  'message_reaction',
] as const;

/** The part of the runner's AbortSignal (a polyfill) the supplier uses. */
export interface RunnerSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
}

export interface UpdateSupplierDeps {
  bot: Bot;
  inbox: NumberedInbox;
  clock: Clock;
  log: Logger;
  /** Telegram answered getMe: calls that need Telegram (the command menu) can go now. */
  onConnected?(): void;
  /** Telegram answered again after failing: what waited for it (the outbox) can go now. */
  onReachable?(): void;
}

/**
 * The update supplier behind @grammyjs/runner: connects (getMe), long-polls getUpdates and
 * writes each batch to the durable inbox before returning it. Contracts:
 * - The offset only moves past updates that are stored: while the inbox cannot be written
 *   (disk full, I/O error) the batch is retried with backoff and no getUpdates is made, so
 *   Telegram never forgets an update satchel has not stored.
 * - Telegram failures are retried with backoff (at most 2 s apart), logged once when they
 *   start (`tg_unreachable`) and once when they end (`tg_reachable`, then `onReachable`); a
 *   rejected token or a second poller is rethrown, which stops polling for good.
 * - The first poll and the first after a failure are short (timeout 0): a long poll says
 *   that Telegram answers only when it ends, up to 30 s later; a short one says it at once
 *   (start-up is healthy, an outage's end is noticed).
 * - Every wait and every call ends promptly when the runner's signal aborts (shutdown).
 */
export function createUpdateSupplier(deps: UpdateSupplierDeps) {
  const { bot, inbox, clock, log } = deps;
  let offset = 0;
  let connected = false;
  /** The next getUpdates returns at once (timeout 0): the first one, and after a failure. */
  let shortPoll = true;
  const telegram = telegramOutageLog(log, clock, deps.onReachable);
  const storage = createOutageLog(log, clock, {
    subject: 'inbox',
    down: {
      event: 'tg_inbox_write_failed',
      level: 'error',
      msg: 'cannot store fetched updates; polling pauses until they are stored',
    },
    up: { event: 'tg_inbox_write_recovered', msg: 'fetched updates stored; polling resumes' },
    cause: (error) => (error instanceof Error ? error.message : String(error)),
  });

  const callTelegram = <T>(signal: AbortSignal, attempt: () => Promise<T>): Promise<T> =>
    retryUntilDone(attempt, {
      clock,
      signal,
      outage: telegram,
      ...TELEGRAM_BACKOFF,
      isFatal: isFatalPollingError,
      delayOf: floodWaitMs,
    });

  async function connect(signal: AbortSignal): Promise<void> {
    const me = await callTelegram(signal, () =>
      withDeadline(clock, 'getMe', ANSWER_SLACK_MS, signal, (s) => bot.api.getMe(apiSignal(s))),
    );
    bot.botInfo = me;
    connected = true;
    log.info(
      { event: 'tg_connected', username: me.username, botId: me.id },
      `connected as @${me.username}`,
    );
    deps.onConnected?.();
  }

  /** One getUpdates: short when `shortPoll` says so, which a failure sets again. */
  async function poll(limit: number, signal: AbortSignal): Promise<unknown[]> {
    const timeout = shortPoll ? 0 : POLL_TIMEOUT_SEC;
    const params = { offset, limit, timeout, allowed_updates: ALLOWED_UPDATES };
    try {
      const fetched: unknown[] = await withDeadline(
        clock,
        'getUpdates',
        timeout * 1000 + ANSWER_SLACK_MS,
        signal,
        (s) => bot.api.getUpdates(params, apiSignal(s)),
      );
      shortPoll = false;
      return fetched;
    } catch (error) {
      shortPoll = true;
      throw error;
    }
  }

  return async function supply(batchSize: number, runnerSignal: RunnerSignal): Promise<Update[]> {
    const signal = nativeSignal(runnerSignal);
    // The next long poll waits for the next task: the turns the last batch started run on to
    // their model requests first, instead of taking turns with building this request (about
    // 0.4 ms before each model call). Updates that come meanwhile are in the next answer.
    await nextTask();
    if (!connected) await connect(signal);
    const limit = Math.max(1, Math.min(batchSize, 100));
    const fetched = await callTelegram(signal, () => poll(limit, signal));
    const storable = keepStorable(fetched, log);
    const fresh = await retryUntilDone(() => inbox.record(storable, clock.now()), {
      clock,
      signal,
      outage: storage,
      ...STORAGE_BACKOFF,
    });
    if (storable.length > 0) offset = Math.max(...storable.map((u) => u.updateId)) + 1;
    if (fresh.length < storable.length)
      log.debug(
        { event: 'tg_update_duplicate', count: storable.length - fresh.length },
        'duplicates dropped',
      );
    return fresh.map((u) => u.payload as Update);
  };
}

/**
 * The fetched items that can be stored: those with an update id. Anything else is garbage
 * that cannot be kept or replayed; it is logged and dropped.
 */
function keepStorable(fetched: readonly unknown[], log: Logger): NumberedItem[] {
  const storable: NumberedItem[] = [];
  for (const item of fetched) {
    const updateId = updateIdOf(item);
    if (updateId === undefined)
      log.warn(
        { event: 'tg_update_malformed', problem: 'update_id: missing or not an integer' },
        'dropped an update without an id',
      );
    else storable.push({ updateId, payload: item });
  }
  return storable;
}

function floodWaitMs(error: unknown): number | undefined {
  const seconds = (error as { parameters?: { retry_after?: unknown } })?.parameters?.retry_after;
  return typeof seconds === 'number' ? seconds * 1000 : undefined;
}

/** The runner passes a polyfill signal; the clock's sleep and fetch want a native one. */
function nativeSignal(signal: RunnerSignal): AbortSignal {
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort());
  return controller.signal;
}

/**
 * grammY types its signal as the abort-controller polyfill's; at run time it only listens
 * for 'abort' on it, which a native signal supports.
 */
function apiSignal(signal: AbortSignal): Parameters<Bot['api']['getMe']>[0] {
  return signal as unknown as Parameters<Bot['api']['getMe']>[0];
}

/**
 * Runs one call that is aborted when `signal` aborts or after `ms` without an answer; the
 * latter fails as a retryable TelegramApiError naming the method.
 */
async function withDeadline<T>(
  clock: Clock,
  method: string,
  ms: number,
  signal: AbortSignal,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (signal.aborted) controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = clock.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ms);
  try {
    return await call(controller.signal);
  } catch (error) {
    if (timedOut && !signal.aborted)
      throw new TelegramApiError(method, `no answer within ${Math.round(ms / 1000)} s`, {
        cause: error,
      });
    throw error;
  } finally {
    clock.clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
