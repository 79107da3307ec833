import { ChannelError, type ChannelErrorKind } from '../core/errors.ts';
import type { Channel, Logger, MediaMessage, TextPart } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { withPlainFallback } from './delivery.ts';

/** The payload of each kind of outbox row. */
export type RowPayload =
  | { kind: 'text'; part: TextPart }
  | { kind: 'edit'; messageId: string; part: TextPart }
  | { kind: 'delete'; messageId: string }
  | { kind: 'media'; media: Omit<MediaMessage, 'caption'>; caption?: TextPart };

/**
 * What one outbox row or live call does on the channel: its markup first and the plain text when
 * the channel refuses the markup; an edit that is already shown counts as done, and an edit
 * of a message that is gone (deleted by someone) sends the text as a new message instead.
 * A channel without edits gets every edit as a new message; one without deletes keeps the
 * message (the row is done).
 */
export function createSenders(channel: Channel, log: Logger) {
  const fellBack = (to: Address, what: string) => () =>
    log.warn(
      { event: `${channel.platform}_parse_fallback`, chatId: to.chatId, what },
      'markup refused; sent plain',
    );

  /** `job`: the pack whose scheduled job's answer this is (the row's `job_pack`). */
  const sendPart = (to: Address, part: TextPart, job?: string) =>
    withPlainFallback(
      () => channel.sendText(to, part.text, { formatted: true, ...extrasOf(part, job) }),
      () => channel.sendText(to, part.plain, { formatted: false, ...extrasOf(part, job) }),
      fellBack(to, 'sendMessage'),
    );

  /** Edits a message in place; done as well when it already shows exactly this. */
  const editPart = async (
    edit: NonNullable<Channel['editText']>,
    to: Address,
    messageId: string,
    part: TextPart,
    job?: string,
  ): Promise<void> => {
    try {
      await withPlainFallback(
        () => edit(to, messageId, part.text, { formatted: true, ...extrasOf(part, job) }),
        () => edit(to, messageId, part.plain, { formatted: false, ...extrasOf(part, job) }),
        fellBack(to, 'editMessageText'),
      );
    } catch (error) {
      if (!isKind(error, 'not_modified')) throw error;
    }
  };

  const sendMedia = (
    to: Address,
    stored: Omit<MediaMessage, 'caption'>,
    caption: TextPart | undefined,
    job: string | undefined,
  ) => {
    const media = { ...stored, ...(job === undefined ? {} : { job }) };
    return withPlainFallback(
      () => channel.sendMedia(to, { ...media, ...captionOf(caption, true) }),
      () => channel.sendMedia(to, { ...media, ...captionOf(caption, false) }),
      fellBack(to, 'sendMedia'),
    );
  };

  /** An edit row: in place, or as a new message when the shown one is gone (or uneditable). */
  async function editOrResend(to: Address, messageId: string, part: TextPart, job?: string) {
    const edit = channel.editText?.bind(channel);
    if (!edit) return sendPart(to, part, job);
    try {
      await editPart(edit, to, messageId, part, job);
      return { messageId };
    } catch (error) {
      if (!isKind(error, 'gone')) throw error;
      log.warn(
        { event: `${channel.platform}_edit_target_gone`, chatId: to.chatId, messageId },
        'the message to edit is gone; sending the text as a new message',
      );
      return sendPart(to, part, job);
    }
  }

  async function deleteMessage(to: Address, messageId: string) {
    try {
      await channel.deleteMessage?.(to, messageId);
    } catch (error) {
      // Already gone: what the row asked for is true.
      if (!isKind(error, 'gone')) throw error;
    }
    return { messageId };
  }

  return {
    sendPart,

    /** Edits a live message in place; false when the channel has no edits (nothing sent). */
    async editLive(to: Address, messageId: string, part: TextPart): Promise<boolean> {
      const edit = channel.editText?.bind(channel);
      if (!edit) return false;
      await editPart(edit, to, messageId, part);
      return true;
    },

    /**
     * Sends one outbox row; resolves with the message it produced or changed. `job`: the
     * row's `job_pack` (a scheduled job's answer), passed on to the channel.
     */
    sendRow(to: Address, payload: RowPayload, job?: string): Promise<{ messageId: string }> {
      switch (payload.kind) {
        case 'text':
          return sendPart(to, payload.part, job);
        case 'edit':
          return editOrResend(to, payload.messageId, payload.part, job);
        case 'media':
          return sendMedia(to, payload.media, payload.caption, job);
        case 'delete':
          return deleteMessage(to, payload.messageId);
      }
    },
  };
}

export type Senders = ReturnType<typeof createSenders>;

function isKind(error: unknown, kind: ChannelErrorKind): boolean {
  return error instanceof ChannelError && error.kind === kind;
}

/** A part's keyboard and the job it comes from, as the channel's send options hold them. */
function extrasOf(part: TextPart, job: string | undefined) {
  return {
    ...(part.keyboard ? { keyboard: part.keyboard } : {}),
    ...(job === undefined ? {} : { job }),
  };
}

function captionOf(caption: TextPart | undefined, formatted: boolean) {
  if (!caption) return {};
  return { caption: { text: formatted ? caption.text : caption.plain, formatted } };
}
