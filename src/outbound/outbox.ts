import PQueue from 'p-queue';
import type { Clock } from '../core/clock.ts';
import { TelegramApiError } from '../core/errors.ts';
import type { Channel, ChatAction, Logger, MediaMessage } from '../core/ports.ts';
import { createSerialQueues } from '../core/serial-queues.ts';
import type { Address } from '../core/types.ts';
import type { OutboxRepo, OutboxRow } from '../store/outbox-repo.ts';
import { composeCaption, composeText, type OutboundText, type TextPart } from './compose.ts';
import { degrade, type OutboundPayload } from './degrade.ts';
import { createDelivery, withPlainFallback } from './delivery.ts';

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

/** The payload of each kind of outbox row. */
type RowPayload =
  | { kind: 'text'; part: TextPart }
  | { kind: 'edit'; messageId: number; part: TextPart }
  | { kind: 'delete'; messageId: number }
  | { kind: 'media'; media: Omit<MediaMessage, 'caption'>; caption?: TextPart };

/**
 * The only way anything reaches a chat. One queue per chat (concurrency 1) keeps a chat's
 * messages in the order they were produced; one global limiter keeps every call together
 * under Telegram's rate. Messages are written to the `outbox` table before they are sent
 * and marked with their message id after, so a restart sends what was not sent and nothing
 * twice. Typing, drafts and live edits ride the same queues but are not stored: they may
 * be skipped, and a newer one replaces them.
 */
export function createOutbox(deps: OutboxDeps) {
  const { repo, channel, clock, log } = deps;
  const limiter = new PQueue({
    interval: Math.ceil(1000 / (deps.globalRatePerSecond ?? 25)),
    intervalCap: 1,
    // Sliding window: the fixed window lets a lone producer through twice per interval.
    strict: true,
  });
  const delivery = createDelivery({
    limiter,
    clock,
    log,
    retryDelaysMs: deps.retryDelaysMs ?? [500, 2000],
  });
  /** One serial lane per chat: a chat's calls keep their order. */
  const { add: inChat, idle: chatsIdle } = createSerialQueues<number>();

  const fallbackLogger = (to: Address, what: string) => () =>
    log.warn({ event: 'tg_parse_fallback', chatId: to.chatId, what }, 'HTML refused; sent plain');

  const sendPart = (to: Address, part: TextPart) =>
    withPlainFallback(
      () => channel.sendText(to, part.html, { html: true, ...keyboardOf(part) }),
      () => channel.sendText(to, part.plain, { html: false, ...keyboardOf(part) }),
      fallbackLogger(to, 'sendMessage'),
    );

  const editPart = async (to: Address, messageId: number, part: TextPart) => {
    try {
      await withPlainFallback(
        () => channel.editText(to, messageId, part.html, { html: true, ...keyboardOf(part) }),
        () => channel.editText(to, messageId, part.plain, { html: false, ...keyboardOf(part) }),
        fallbackLogger(to, 'editMessageText'),
      );
    } catch (error) {
      // Already showing exactly this: the edit has happened.
      if (!(error instanceof TelegramApiError) || !error.isNotModified) throw error;
    }
    return { messageId };
  };

  const sendMedia = (to: Address, media: Omit<MediaMessage, 'caption'>, caption?: TextPart) =>
    withPlainFallback(
      () => channel.sendMedia(to, { ...media, ...captionOf(caption, true) }),
      () => channel.sendMedia(to, { ...media, ...captionOf(caption, false) }),
      fallbackLogger(to, 'sendMedia'),
    );

  function send(to: Address, payload: RowPayload): Promise<{ messageId: number }> {
    switch (payload.kind) {
      case 'text':
        return sendPart(to, payload.part);
      case 'edit':
        return editPart(to, payload.messageId, payload.part);
      case 'media':
        return sendMedia(to, payload.media, payload.caption);
      case 'delete':
        return channel.deleteMessage(to, payload.messageId).then(() => payload);
    }
  }

  /** Sends one row; false when Telegram did not take it (it stays pending unless final). */
  async function deliver(row: OutboxRow): Promise<boolean> {
    const to = addressOf(row);
    try {
      const sent = await delivery.required(to, () => send(to, JSON.parse(row.payload)));
      repo.markSent(row.id, sent.messageId, clock.now());
      return true;
    } catch (error) {
      const final = error instanceof TelegramApiError && !error.transient;
      repo.markAttempt(row.id, String((error as Error).message), final);
      log.error(
        { event: 'tg_send_failed', chatId: to.chatId, outboxId: row.id, final, err: error },
        'send failed',
      );
      return false;
    }
  }

  /** Sends the rows in their chats' order; resolves whether all of them were sent. */
  function dispatch(ids: readonly number[]): Promise<boolean> {
    const tasks = ids.map((id) => {
      const row = repo.get(id);
      if (row?.status !== 'pending') return Promise.resolve(row?.status === 'sent');
      return inChat(row.chatId, () => deliver(row));
    });
    return Promise.all(tasks).then((sent) => sent.every(Boolean));
  }

  const insert = (to: Address, payload: RowPayload) =>
    repo.insert(to, payload.kind, payload, clock.now());

  /** Writes a payload's rows; returns their ids and what was degraded, if anything. */
  function writePayload(to: Address, payload: OutboundPayload): { ids: number[]; note?: string } {
    const degraded = degrade(payload, channel.capabilities);
    const p = degraded.payload;
    const note = degraded.note === undefined ? {} : { note: degraded.note };
    if (!p || p.kind === 'action') {
      if (p) void chatAction(to, p.action);
      return { ids: [], ...note };
    }
    if (p.kind === 'text') return { ids: write(to, p), ...note };
    const { caption, rest } = composeCaption(p.caption ?? '');
    const media = {
      kind: p.kind,
      source: p.source,
      ...(p.keyboard ? { keyboard: p.keyboard } : {}),
    };
    const ids = [
      insert(to, { kind: 'media', media, ...(caption ? { caption } : {}) }),
      ...rest.map((part) => insert(to, { kind: 'text', part })),
    ];
    return { ids, ...note };
  }

  /** Writes a text's parts as rows (call inside a transaction to tie them to other writes). */
  function write(to: Address, message: OutboundText): number[] {
    return writeParts(to, composeText(message));
  }

  function writeParts(to: Address, parts: TextPart[]): number[] {
    return parts.map((part) => insert(to, { kind: 'text', part }));
  }

  function chatAction(to: Address, action: ChatAction): Promise<void> {
    if (!channel.capabilities.chatActions) return Promise.resolve();
    return inChat(to.chatId, async () => {
      await delivery.optional(to, 'sendChatAction', () => channel.sendChatAction(to, action));
    });
  }

  return {
    write,
    writeParts,
    writePayload,

    /** Writes an edit of a sent message to `part` (used to finish a streamed message). */
    writeEdit: (to: Address, messageId: number, part: TextPart): number =>
      insert(to, { kind: 'edit', messageId, part }),

    /** Writes the removal of a message the bot sent (a streamed part the final text dropped). */
    writeDelete: (to: Address, messageId: number): number =>
      insert(to, { kind: 'delete', messageId }),

    /** Sends written rows in order; resolves when each was sent or given up on. */
    dispatch,

    /** write + dispatch; resolves whether every part was sent. */
    send: (to: Address, message: OutboundText): Promise<boolean> => dispatch(write(to, message)),

    chatAction,

    /** A streamed draft (private chats); skipped on failure, the next one replaces it. */
    draft: (to: Address, draftId: number, part: TextPart): Promise<void> =>
      inChat(to.chatId, async () => {
        await delivery.optional(to, 'sendMessageDraft', () =>
          withPlainFallback(
            () => channel.sendDraft(to, draftId, part.html, { html: true }),
            () => channel.sendDraft(to, draftId, part.plain, { html: false }),
            fallbackLogger(to, 'sendMessageDraft'),
          ),
        );
      }),

    /** Sends the first chunk of a streamed message; undefined when it could not be sent. */
    sendLive: (to: Address, part: TextPart): Promise<number | undefined> =>
      inChat(to.chatId, async () => {
        const sent = await delivery.optional(to, 'sendMessage', () => sendPart(to, part));
        return sent?.messageId;
      }),

    /** Edits a streamed message in place; false when the edit was skipped. */
    editLive: (to: Address, messageId: number, part: TextPart): Promise<boolean> =>
      inChat(to.chatId, async () => {
        const done = await delivery.optional(to, 'editMessageText', () =>
          editPart(to, messageId, part),
        );
        return done !== undefined;
      }),

    /** Answers a button press; a failure is logged and nothing more. */
    async answerCallback(callbackId: string, text?: string): Promise<void> {
      const to: Address = { platform: 'tg', chatId: 0 };
      await delivery.optional(to, 'answerCallbackQuery', () =>
        channel.answerCallback(callbackId, text),
      );
    },

    /** Creates a forum topic through the chat's queue; Telegram's refusal is thrown. */
    createTopic: (chatId: number, name: string): Promise<{ threadId: number }> =>
      inChat(chatId, () =>
        delivery.required({ platform: 'tg', chatId }, () => channel.createTopic(chatId, name)),
      ),

    /** Sends every row left unsent by an earlier run, in the order written. */
    resumeUnsent: async (): Promise<void> => {
      await dispatch(repo.unsent().map((row) => row.id));
    },

    /** Resolves when every chat queue is empty and idle. */
    async idle(): Promise<void> {
      await chatsIdle();
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;

function addressOf(row: OutboxRow): Address {
  return {
    platform: 'tg',
    chatId: row.chatId,
    ...(row.threadId === null ? {} : { threadId: row.threadId }),
  };
}

function keyboardOf(part: TextPart) {
  return part.keyboard ? { keyboard: part.keyboard } : {};
}

function captionOf(caption: TextPart | undefined, html: boolean) {
  if (!caption) return {};
  return { caption: { text: html ? caption.html : caption.plain, html } };
}
