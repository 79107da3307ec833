/**
 * A channel whose ids are strings, as Slack's are: chats like `C024BE91L`, users like
 * `U024BE7LH`, messages named by a timestamp (`1712345678.000200`), a thread by its first
 * message's. It joins the core through the edge list alone (`stringIdEdge().factory`), to
 * prove that the core stores and routes ids it cannot read (SPEC §16). It shows text as the
 * memory channel does (Telegram's HTML, checked by that fake's own reading).
 */

import type { EdgeFactory } from '../../src/core/edge.ts';
import { ChannelError } from '../../src/core/errors.ts';
import type { Channel, InlineButton, SendTextOptions } from '../../src/core/ports.ts';
import type { Address, InboundEvent, InboundPayload } from '../../src/core/types.ts';
import { telegramRenderer } from '../../src/telegram/render.ts';
import { htmlProblem, visibleText } from '../fakes/memory-channel.ts';

export const STRING_ID_PLATFORM = 'strid';
/** The one person who talks to it in the tests. */
export const STRING_ID_USER = 'U024BE7LH';

interface Shown {
  threadId: string | undefined;
  text: string;
  /** What was sent, to tell an edit that changes nothing. */
  source: string;
  buttons?: InlineButton[][];
}

export interface StringIdChannel extends Channel {
  /** What a chat (thread) shows now, oldest first. */
  shown(to: Address): string[];
  /** The latest message of a chat (thread) that shows buttons, with its id. */
  withButtons(to: Address): { messageId: string; buttons: InlineButton[][] } | undefined;
}

export function createStringIdChannel(platform = STRING_ID_PLATFORM): StringIdChannel {
  const chats = new Map<string, Map<string, Shown>>();
  let sent = 0;
  /** A Slack-like `ts`: seconds, a dot, six digits; each message its own. */
  const nextTs = () => `1712345678.${String(++sent * 100).padStart(6, '0')}`;
  const chat = (to: Address) => {
    const found = chats.get(to.chatId) ?? new Map<string, Shown>();
    chats.set(to.chatId, found);
    return found;
  };
  const body = (method: string, text: string, formatted: boolean): string => {
    const problem = formatted ? htmlProblem(text) : undefined;
    if (problem) throw new ChannelError('bad_markup', method, problem);
    const visible = formatted ? visibleText(text) : text;
    if (visible.trim() === '') throw new ChannelError('refused', method, 'no_text');
    return visible;
  };
  const add = (to: Address, text: string, source: string, buttons?: InlineButton[][]) => {
    const messageId = nextTs();
    chat(to).set(messageId, {
      threadId: to.threadId,
      text,
      source,
      ...(buttons ? { buttons } : {}),
    });
    return { messageId };
  };
  const inPlace = (to: Address) =>
    [...chat(to).entries()].filter(([, m]) => m.threadId === to.threadId);

  return {
    platform,
    capabilities: { photo: false, audio: false, voice: false, document: false, keyboard: true },
    render: telegramRenderer,
    async sendText(to, text, options: SendTextOptions) {
      return add(to, body('sendText', text, options.formatted), text, options.keyboard);
    },
    async sendMedia(to, media) {
      const caption = media.caption
        ? ` ${body('sendMedia', media.caption.text, media.caption.formatted)}`
        : '';
      return add(to, `[${media.kind}]${caption}`, '', media.keyboard);
    },
    async editText(to, messageId, text, options) {
      const message = chat(to).get(messageId);
      if (!message) throw new ChannelError('gone', 'editText', 'message_not_found');
      const shown = body('editText', text, options.formatted);
      const source = JSON.stringify([text, options.keyboard ?? null]);
      if (source === JSON.stringify([message.source, message.buttons ?? null]))
        throw new ChannelError('not_modified', 'editText', 'cant_update_message');
      Object.assign(message, { text: shown, source: text, buttons: options.keyboard });
    },
    async deleteMessage(to, messageId) {
      if (!chat(to).delete(messageId))
        throw new ChannelError('gone', 'deleteMessage', 'message_not_found');
    },
    async answerCallback() {},
    shown: (to) => inPlace(to).map(([, m]) => m.text),
    withButtons(to) {
      const found = inPlace(to).findLast(([, m]) => m.buttons?.length);
      return found && { messageId: found[0], buttons: found[1].buttons! };
    },
  };
}

/**
 * The channel as an edge, and its ingress: `say` and `press` hand the pipeline (the port the
 * core gives its ingress) what a person typed or pressed (origin `strid`, keys of its own);
 * `acked` holds the keys the core settled.
 */
export function stringIdEdge() {
  const channel = createStringIdChannel();
  const acked: string[] = [];
  let accept: ((event: InboundEvent) => void) | undefined;
  let events = 0;
  const factory: EdgeFactory = {
    platform: STRING_ID_PLATFORM,
    name: 'the string-id chat',
    connect: () => ({
      platform: STRING_ID_PLATFORM,
      channel,
      acknowledge: (keys: readonly string[]) => acked.push(...keys),
      ingress: (port) => {
        accept = port.accept;
        return {};
      },
    }),
  };
  const enter = (to: Address, payload: InboundPayload, messageId?: string) => {
    if (!accept) throw new Error('the core has not connected this edge yet');
    accept({
      origin: { platform: STRING_ID_PLATFORM, keys: [`Ev${++events}`] },
      address: to,
      chatType: 'private',
      senderId: STRING_ID_USER,
      ...(messageId === undefined ? {} : { messageId }),
      receivedAt: 0,
      ...payload,
    });
  };
  return {
    factory,
    channel,
    acked,
    say: (to: Address, text: string) => enter(to, { kind: 'text', text }),
    /** Presses button `data` under message `messageId`. */
    press: (to: Address, messageId: string, data: string) =>
      enter(to, { kind: 'callback', callbackId: `${messageId}:${data}`, data }, messageId),
  };
}
