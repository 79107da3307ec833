/**
 * An in-memory Channel: what a chat shows is kept in memory, as a platform would keep it.
 * Message ids count up per chat (a topic's id is the id of the message that created it),
 * HTML is checked as Telegram checks it, edits and deletes of unknown messages are `gone`,
 * an edit that changes nothing is `not_modified`, and any call can be made to fail with a
 * ChannelError of a chosen kind (`fail`). `without` leaves optional methods out, so the
 * pipeline's fallbacks can be exercised.
 *
 * Written independently of src/outbound (its own HTML reading), so tests that use it do not
 * check the code against itself.
 */
import { ChannelError, type ChannelErrorKind } from '../../src/core/errors.ts';
import type {
  Channel,
  ChannelCapabilities,
  ChatAction,
  InlineButton,
  MediaKind,
  SendTextOptions,
} from '../../src/core/ports.ts';
import type { Address } from '../../src/core/types.ts';
import { telegramRenderer } from '../../src/telegram/render.ts';

export type OptionalMethod =
  | 'editText'
  | 'deleteMessage'
  | 'sendDraft'
  | 'sendChatAction'
  | 'answerCallback'
  | 'createTopic';

export type ChannelMethod = 'sendText' | 'sendMedia' | OptionalMethod;

export const OPTIONAL_METHODS: readonly OptionalMethod[] = [
  'editText',
  'deleteMessage',
  'sendDraft',
  'sendChatAction',
  'answerCallback',
  'createTopic',
];

export interface MemoryChannelOptions {
  /** The platform of the addresses it serves (default `mem`). */
  platform?: string;
  /** Payload kinds it cannot send (default: it can send all). */
  capabilities?: Partial<ChannelCapabilities>;
  /** Optional methods to leave out: the channel then has no such property at all. */
  without?: readonly OptionalMethod[];
}

/** A message as the chat shows it. */
export interface ShownMessage {
  messageId: string;
  threadId: string | undefined;
  /** What the user reads: the visible text (tags out, entities decoded). */
  text: string;
  /** The text as sent, and whether it was HTML (an edit of the same is `not_modified`). */
  source: { text: string; html: boolean; keyboard: string };
  media?: MediaKind;
}

export interface MemoryCall {
  method: ChannelMethod;
  chatId?: string;
  threadId?: string;
  /** The kind it failed with, if it failed. */
  failed?: ChannelErrorKind;
}

export interface FailOptions {
  /** Only calls of this method fail (default: any call). */
  method?: ChannelMethod;
  /** How many calls fail (default 1). */
  times?: number;
  /** The wait a `rate_limited` failure asks for (default 1000 ms). */
  retryAfterMs?: number;
}

export interface MemoryChannel extends Channel {
  /** What a chat shows now, oldest first: one topic, or General when `to` has no threadId. */
  transcript(to: Address): string[];
  /** The messages a chat (topic) shows now, oldest first. */
  messages(to: Address): ShownMessage[];
  /** The latest draft shown in a chat (topic), if any. */
  draftOf(to: Address): string | undefined;
  /** Chat actions shown in a chat (topic), in order. */
  actions(to: Address): ChatAction[];
  /** Button presses answered, in order. */
  readonly answered: { callbackId: string; text?: string }[];
  /** Every call, in order, failed ones included. */
  readonly calls: MemoryCall[];
  /** The next matching call(s) reject with a ChannelError of `kind` and change nothing. */
  fail(kind: ChannelErrorKind, options?: FailOptions): void;
}

const ALL_KINDS: ChannelCapabilities = {
  photo: true,
  audio: true,
  voice: true,
  document: true,
  keyboard: true,
};

export function createMemoryChannel(options: MemoryChannelOptions = {}): MemoryChannel {
  const platform = options.platform ?? 'mem';
  /** Every message of a chat by id (in all its topics), in the order sent. */
  const chats = new Map<string, Map<string, ShownMessage>>();
  const lastIds = new Map<string, number>();
  const drafts = new Map<string, string>();
  const actionLog = new Map<string, ChatAction[]>();
  const answered: { callbackId: string; text?: string }[] = [];
  const calls: MemoryCall[] = [];
  const faults: { kind: ChannelErrorKind; options: FailOptions; left: number }[] = [];

  const place = (to: Address) => `${to.chatId}:${to.threadId ?? ''}`;
  const chat = (chatId: string) => {
    const messages = chats.get(chatId) ?? new Map<string, ShownMessage>();
    chats.set(chatId, messages);
    return messages;
  };
  const nextId = (chatId: string) => {
    const id = (lastIds.get(chatId) ?? 0) + 1;
    lastIds.set(chatId, id);
    return String(id);
  };

  /** Records the call and throws an injected failure, if one matches. */
  function enter(method: ChannelMethod, to?: Address): void {
    const call: MemoryCall = {
      method,
      ...(to ? { chatId: to.chatId } : {}),
      ...(to?.threadId === undefined ? {} : { threadId: to.threadId }),
    };
    calls.push(call);
    const fault = faults.find((f) => f.options.method === undefined || f.options.method === method);
    if (!fault) return;
    if (--fault.left <= 0) faults.splice(faults.indexOf(fault), 1);
    call.failed = fault.kind;
    const retryAfterMs = fault.options.retryAfterMs ?? 1000;
    throw new ChannelError(fault.kind, method, `injected ${fault.kind}`, {
      ...(fault.kind === 'rate_limited' ? { retryAfterMs } : {}),
    });
  }

  /** Throws what the platform answers for text it cannot show; returns the visible text. */
  function readable(method: ChannelMethod, text: string, html: boolean, limit: number): string {
    const problem = html ? htmlProblem(text) : undefined;
    if (problem) {
      calls.at(-1)!.failed = 'bad_markup';
      throw new ChannelError('bad_markup', method, `can't parse the HTML: ${problem}`);
    }
    const shown = html ? visibleText(text) : text;
    const reason =
      shown.trim() === '' ? 'text is empty' : shown.length > limit ? 'text is too long' : '';
    if (reason) refuse(method, reason);
    return shown;
  }

  function refuse(
    method: ChannelMethod,
    reason: string,
    kind: ChannelErrorKind = 'refused',
  ): never {
    calls.at(-1)!.failed = kind;
    throw new ChannelError(kind, method, reason);
  }

  const keyboardOf = (options: { keyboard?: InlineButton[][] }) =>
    JSON.stringify(options.keyboard ?? null);

  function add(to: Address, message: Omit<ShownMessage, 'messageId' | 'threadId'>) {
    const messageId = nextId(to.chatId);
    chat(to.chatId).set(messageId, { messageId, threadId: to.threadId, ...message });
    return { messageId };
  }

  const channel: MemoryChannel = {
    platform,
    capabilities: { ...ALL_KINDS, ...options.capabilities },
    // It shows text as Telegram does (checked by its own HTML reading below).
    render: telegramRenderer,

    async sendText(to, text, opts: SendTextOptions) {
      enter('sendText', to);
      const shown = readable('sendText', text, opts.formatted, 4096);
      return add(to, {
        text: shown,
        source: { text, html: opts.formatted, keyboard: keyboardOf(opts) },
      });
    },

    async sendMedia(to, media) {
      enter('sendMedia', to);
      if (!channel.capabilities[media.kind]) refuse('sendMedia', `cannot send a ${media.kind}`);
      const caption = media.caption
        ? readable('sendMedia', media.caption.text, media.caption.formatted, 1024)
        : '';
      const text = caption ? `[${media.kind}] ${caption}` : `[${media.kind}]`;
      const source = { text: '', html: false, keyboard: keyboardOf(media) };
      return add(to, { text, source, media: media.kind });
    },

    async editText(to, messageId, text, opts) {
      enter('editText', to);
      const message = chat(to.chatId).get(messageId);
      if (!message) refuse('editText', 'message to edit not found', 'gone');
      if (message.media) refuse('editText', 'there is no text in the message to edit');
      const shown = readable('editText', text, opts.formatted, 4096);
      const source = { text, html: opts.formatted, keyboard: keyboardOf(opts) };
      if (JSON.stringify(source) === JSON.stringify(message.source))
        refuse('editText', 'message is not modified', 'not_modified');
      Object.assign(message, { text: shown, source });
    },

    async deleteMessage(to, messageId) {
      enter('deleteMessage', to);
      if (!chat(to.chatId).delete(messageId))
        refuse('deleteMessage', 'message to delete not found', 'gone');
    },

    async sendDraft(to, _draftId, text, opts) {
      enter('sendDraft', to);
      drafts.set(place(to), readable('sendDraft', text, opts.formatted, 4096));
    },

    async sendChatAction(to, action) {
      enter('sendChatAction', to);
      const key = place(to);
      actionLog.set(key, [...(actionLog.get(key) ?? []), action]);
    },

    async answerCallback(callbackId, text) {
      enter('answerCallback');
      answered.push(text === undefined ? { callbackId } : { callbackId, text });
    },

    async createTopic(chatId, name) {
      enter('createTopic', { platform, chatId });
      if (name.trim() === '') refuse('createTopic', 'topic name is empty');
      // The topic's id is the id of the service message that created it (not shown).
      return { threadId: nextId(chatId) };
    },

    transcript: (to) => channel.messages(to).map((m) => m.text),
    messages: (to) =>
      [...chat(to.chatId).values()]
        .filter((m) => m.threadId === to.threadId)
        .map((m) => ({ ...m })),
    draftOf: (to) => drafts.get(place(to)),
    actions: (to) => [...(actionLog.get(place(to)) ?? [])],
    answered,
    calls,
    fail(kind, failOptions = {}) {
      faults.push({ kind, options: failOptions, left: failOptions.times ?? 1 });
    },
  };
  for (const method of options.without ?? []) delete channel[method];
  return channel;
}

/** Tags Telegram's HTML parse mode accepts. */
const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'tg-emoji',
  'a',
  'code',
  'pre',
  'blockquote',
]);

const PIECE = /<(\/?)([a-zA-Z][\w-]*)[^<>]*>|&(#\d+|#x[0-9a-fA-F]+|lt|gt|amp|quot);|<|>|&/g;

/**
 * Why Telegram would refuse `html` in HTML parse mode — an unknown tag, a tag closed out of
 * order or never closed, a bare `<`, `>` or `&` — or undefined when it is fine.
 */
export function htmlProblem(html: string): string | undefined {
  const open: string[] = [];
  for (const match of html.matchAll(PIECE)) {
    const [piece, closing, rawName, entity] = match;
    if (entity !== undefined) continue;
    if (rawName === undefined) return `a bare "${piece}" at offset ${match.index}`;
    const name = rawName.toLowerCase();
    if (!TAGS.has(name)) return `unsupported tag <${name}>`;
    if (!closing) open.push(name);
    else if (open.pop() !== name) return `</${name}> does not close the open tag`;
  }
  return open.length ? `<${open.at(-1)}> is never closed` : undefined;
}

/** The text a user reads of valid HTML: tags out, entities decoded. */
export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&#x([0-9a-fA-F]+);/g, (_, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16)),
    )
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}
