/**
 * The Channel contract: one suite of cases, run against every channel — the in-memory one,
 * the Telegram channel (real grammY `Api` over HTTP to the fake Bot API server), the web
 * chat's (what a page is shown), the terminal's (what it prints) and a test channel whose ids
 * are strings (Slack-like, test/support/string-id-channel.ts). Each case states what
 * the pipeline relies on: message ids, edits, and the ChannelError kind of each failure the
 * outbox acts on. A case that needs an optional method runs only where the channel has it;
 * one that needs markup, several conversations or the platform's own trouble runs only where
 * the channel has them.
 */
import { Api } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError, type ChannelErrorKind } from '../../src/core/errors.ts';
import type { Channel } from '../../src/core/ports.ts';
import type { Address } from '../../src/core/types.ts';
import { createTelegramChannel } from '../../src/telegram/channel.ts';
import { createTerminalChannel } from '../../src/terminal/channel.ts';
import { createWebChannel } from '../../src/web/channel.ts';
import {
  createMemoryChannel,
  htmlProblem,
  type MemoryChannel,
  OPTIONAL_METHODS,
  visibleText,
} from '../fakes/memory-channel.ts';
import { type ApiCall, FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { createStringIdChannel, STRING_ID_PLATFORM } from '../support/string-id-channel.ts';

/** What a case may arrange that no call can cause: the platform's own trouble. */
type Trouble = Extract<ChannelErrorKind, 'rate_limited' | 'transient'>;

interface Rig {
  channel: Channel;
  /** What a chat shows now (one topic, or General without threadId), oldest first. */
  shown(to: Address): string[];
  /** The next sendText fails as the platform fails under `trouble`; none: it never does. */
  provoke?(trouble: Trouble): void;
  /** Its own format is plain text: there is no markup to refuse (HTML is sent as its words). */
  plain?: boolean;
  /** It serves one conversation (the terminal): every address is that one. */
  oneConversation?: boolean;
  /** A chat no other case has used, in the channel's own ids (default: Telegram-like digits). */
  freshChat?(): Address;
  close(): Promise<void>;
}

const RIGS: Record<string, () => Promise<Rig>> = {
  memory: async () => memoryRig(createMemoryChannel({ platform: 'tg' })),
  'memory (no optional methods)': async () =>
    memoryRig(createMemoryChannel({ platform: 'tg', without: OPTIONAL_METHODS })),
  telegram: async () => {
    const tg = await FakeTelegram.start();
    answerLikeTelegram(tg);
    return {
      channel: createTelegramChannel(new Api(TEST_TOKEN, { apiRoot: tg.apiRoot })),
      shown: (to) => shownByTelegram(tg, to),
      provoke: (trouble) =>
        tg.fail(
          'sendMessage',
          trouble === 'rate_limited' ? { status: 429, retryAfter: 3 } : { status: 502 },
        ),
      close: () => tg.stop(),
    };
  },
  web: async () => {
    const channel = createWebChannel(() => Date.now());
    return {
      channel,
      shown: (to) =>
        channel
          .conversation(to)
          .snapshot()
          .entries.map((e) => ('html' in e ? visibleText(e.html) : e.text)),
      close: async () => undefined,
    };
  },
  'string ids (Slack-like)': async () => {
    const channel = createStringIdChannel();
    let chats = 0;
    return {
      channel,
      shown: (to) => channel.shown(to),
      freshChat: () => ({ platform: STRING_ID_PLATFORM, chatId: `C024BE9${++chats}L` }),
      close: async () => undefined,
    };
  },
  terminal: async () => {
    let printed = '';
    const channel = createTerminalChannel((text) => {
      printed += text;
    });
    return {
      channel,
      shown: () => printed.split('\n').filter((line) => line !== ''),
      plain: true,
      oneConversation: true,
      close: async () => undefined,
    };
  },
};

function memoryRig(channel: MemoryChannel): Rig {
  return {
    channel,
    shown: (to) => channel.transcript(to),
    provoke: (trouble) => channel.fail(trouble, { method: 'sendText', retryAfterMs: 3000 }),
    close: async () => undefined,
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let nextChat = 7000;

const PLAIN = { formatted: false } as const;
const HTML = { formatted: true } as const;

/** `html` in the rig's own format: itself, or its words where the format is plain text. */
const rich = (rig: Rig, html: string): [string, typeof HTML] => [
  rig.plain ? visibleText(html) : html,
  HTML,
];

/** The ChannelError `call` rejects with (fails the test when it does not reject with one). */
async function failure(call: Promise<unknown>): Promise<ChannelError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChannelError);
  return error as ChannelError;
}

describe.each(Object.keys(RIGS))('the %s channel keeps the Channel contract', (name) => {
  let rig: Rig;
  let channel: Channel;

  const start = async () => {
    rig = await RIGS[name]!();
    channel = rig.channel;
    cleanups.push(() => rig.close());
  };
  /** A chat no other case has used. */
  const freshChat = (): Address =>
    rig.freshChat?.() ?? { platform: 'tg', chatId: String(nextChat++) };

  it('gives each message an id of its own in its chat, and shows them in order', async () => {
    await start();
    const a = freshChat();
    // A channel of one conversation shows them all there.
    const b = rig.oneConversation ? a : freshChat();
    const ids = { a: [] as string[], b: [] as string[] };
    for (const [to, key, text] of [
      [a, 'a', 'a1'],
      [b, 'b', 'b1'],
      [a, 'a', 'a2'],
      [a, 'a', '<b>a3</b> &amp; co'],
      [b, 'b', 'b2'],
    ] as const) {
      const { messageId } = await (key === 'a'
        ? channel.sendText(to, ...rich(rig, text))
        : channel.sendText(to, text, PLAIN));
      ids[key].push(messageId);
    }
    // The core stores and compares ids, never orders them (they are the channel's business).
    for (const list of [ids.a, ids.b]) expect(new Set(list).size).toBe(list.length);
    if (rig.oneConversation) {
      expect(rig.shown(a)).toEqual(['a1', 'b1', 'a2', 'a3 & co', 'b2']);
      return;
    }
    expect(rig.shown(a)).toEqual(['a1', 'a2', 'a3 & co']);
    expect(rig.shown(b)).toEqual(['b1', 'b2']);
  });

  it('gives a photo an id of its own and shows it with its caption', async () => {
    await start();
    const to = freshChat();
    const first = await channel.sendText(to, 'before', PLAIN);
    const [caption] = rich(rig, 'a <i>cat</i>');
    const photo = await channel.sendMedia(to, {
      kind: 'photo',
      source: { url: 'https://example.com/cat.jpg' },
      caption: { text: caption, formatted: true },
    });
    expect(typeof photo.messageId).toBe('string');
    expect(photo.messageId).not.toBe(first.messageId);
    // A channel may name the file it shows in place of the photo.
    expect(rig.shown(to)).toEqual(['before', expect.stringMatching(/^\[photo\b[^\]]*\] a cat$/)]);
  });

  it('refuses an empty text for good', async () => {
    await start();
    const to = freshChat();
    expect((await failure(channel.sendText(to, '   ', PLAIN))).kind).toBe('refused');
    expect(rig.shown(to)).toEqual([]);
  });

  it('refuses bad HTML as bad_markup, and takes the same words as plain text', async ({ skip }) => {
    await start();
    if (rig.plain) return skip('the channel has no markup');
    const to = freshChat();
    const error = await failure(channel.sendText(to, '<b>unclosed & bare', HTML));
    expect(error.kind).toBe('bad_markup');
    expect(rig.shown(to)).toEqual([]);
    await channel.sendText(to, 'unclosed & bare', PLAIN);
    expect(rig.shown(to)).toEqual(['unclosed & bare']);
  });

  it('answers a flood with rate_limited and the wait, and shows nothing of it', async ({
    skip,
  }) => {
    await start();
    if (!rig.provoke) return skip('nothing rate-limits the channel');
    const to = freshChat();
    rig.provoke('rate_limited');
    const error = await failure(channel.sendText(to, 'too soon', PLAIN));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(3000);
    expect(rig.shown(to)).toEqual([]);
    await channel.sendText(to, 'later', PLAIN);
    expect(rig.shown(to)).toEqual(['later']);
  });

  it('answers a server failure with transient', async ({ skip }) => {
    await start();
    if (!rig.provoke) return skip('the channel has no server to fail');
    const to = freshChat();
    rig.provoke('transient');
    expect((await failure(channel.sendText(to, 'lost', PLAIN))).kind).toBe('transient');
    expect(rig.shown(to)).toEqual([]);
  });

  it('carries thread ids: a message in a topic shows there, one without in General', async ({
    skip,
  }) => {
    await start();
    if (rig.oneConversation) return skip('the channel has one conversation');
    const chat = freshChat();
    const threadId = channel.createTopic
      ? (await channel.createTopic(chat.chatId, 'Notes')).threadId
      : '77';
    const topic = { ...chat, threadId };
    await channel.sendText(topic, 'in the topic', PLAIN);
    const general = await channel.sendText(chat, 'in General', PLAIN);
    expect(rig.shown(topic)).toEqual(['in the topic']);
    expect(rig.shown(chat)).toEqual(['in General']);
    if (channel.editText) {
      await channel.editText(chat, general.messageId, 'General, edited', PLAIN);
      expect(rig.shown(chat)).toEqual(['General, edited']);
      expect(rig.shown(topic)).toEqual(['in the topic']);
    }
  });

  describe('edits and deletes, where the channel has them', () => {
    it('changes the text of a message in place', async ({ skip }) => {
      await start();
      if (!channel.editText) return skip('the channel has no editText');
      const to = freshChat();
      const { messageId } = await channel.sendText(to, 'first', PLAIN);
      await channel.sendText(to, 'second', PLAIN);
      await channel.editText(to, messageId, '<i>first</i>, edited', HTML);
      expect(rig.shown(to)).toEqual(['first, edited', 'second']);
    });

    it('answers the same text again with not_modified, and changes nothing', async ({ skip }) => {
      await start();
      if (!channel.editText) return skip('the channel has no editText');
      const to = freshChat();
      const { messageId } = await channel.sendText(to, '<b>same</b>', HTML);
      const error = await failure(channel.editText(to, messageId, '<b>same</b>', HTML));
      expect(error.kind).toBe('not_modified');
      expect(rig.shown(to)).toEqual(['same']);
    });

    it('refuses an edit to bad HTML as bad_markup, and keeps the text', async ({ skip }) => {
      await start();
      if (!channel.editText) return skip('the channel has no editText');
      const to = freshChat();
      const { messageId } = await channel.sendText(to, 'kept', PLAIN);
      const error = await failure(channel.editText(to, messageId, 'a <x>tag</x>', HTML));
      expect(error.kind).toBe('bad_markup');
      expect(rig.shown(to)).toEqual(['kept']);
    });

    it('answers an edit of a message that does not exist with gone', async ({ skip }) => {
      await start();
      if (!channel.editText) return skip('the channel has no editText');
      const to = freshChat();
      await channel.sendText(to, 'only one', PLAIN);
      expect((await failure(channel.editText(to, '999999', 'x', PLAIN))).kind).toBe('gone');
      expect(rig.shown(to)).toEqual(['only one']);
    });

    it('deletes a message; deleting or editing it again is gone', async ({ skip }) => {
      await start();
      if (!channel.deleteMessage) return skip('the channel has no deleteMessage');
      const to = freshChat();
      const { messageId } = await channel.sendText(to, 'short-lived', PLAIN);
      await channel.sendText(to, 'stays', PLAIN);
      await channel.deleteMessage(to, messageId);
      expect(rig.shown(to)).toEqual(['stays']);
      expect((await failure(channel.deleteMessage(to, messageId))).kind).toBe('gone');
      if (channel.editText)
        expect((await failure(channel.editText(to, messageId, 'back', PLAIN))).kind).toBe('gone');
    });
  });
});

describe('the memory channel', () => {
  it('leaves out the optional methods it is told to, and has them all by default', () => {
    const bare = createMemoryChannel({ without: OPTIONAL_METHODS });
    for (const method of OPTIONAL_METHODS) expect(bare).not.toHaveProperty(method);
    const full = createMemoryChannel();
    for (const method of OPTIONAL_METHODS) expect(full[method]).toBeTypeOf('function');
  });
});

/**
 * Makes the fake answer as Telegram does where it does not model Telegram itself: HTML it
 * could not parse, and deleting a message the chat does not have.
 */
function answerLikeTelegram(tg: FakeTelegram): void {
  for (const method of ['sendMessage', 'editMessageText', 'sendMessageDraft'])
    tg.failWhen(
      method,
      (p) => p.parse_mode === 'HTML' && htmlProblem(String(p.text)) !== undefined,
      { status: 400, description: "Bad Request: can't parse entities: unsupported start tag" },
      Number.POSITIVE_INFINITY,
    );
  tg.failWhen(
    'deleteMessage',
    (p) => !showing(tg, String(p.chat_id)).has(Number(p.message_id)),
    { status: 400, description: 'Bad Request: message to delete not found' },
    Number.POSITIVE_INFINITY,
  );
}

interface TelegramMessage {
  threadId: string | undefined;
  text: string;
}

/** The messages a chat shows, by id, read from what the fake Bot API answered. */
function showing(tg: FakeTelegram, chatId: string): Map<number, TelegramMessage> {
  const shown = new Map<number, TelegramMessage>();
  const ofChat = (c: ApiCall) => !c.failed && String(c.params.chat_id) === chatId;
  const read = (text: unknown, parseMode: unknown) =>
    parseMode === 'HTML' ? visibleText(String(text)) : String(text);
  for (const call of tg.calls().filter(ofChat)) {
    const id = Number(call.params.message_id ?? call.result?.message_id);
    if (call.method === 'deleteMessage') shown.delete(id);
    else if (call.method === 'editMessageText') {
      const message = shown.get(id);
      if (message) message.text = read(call.params.text, call.params.parse_mode);
    } else if (call.method === 'sendMessage') {
      const text = read(call.params.text, call.params.parse_mode);
      shown.set(id, { threadId: threadOf(call), text });
    } else if (call.method.startsWith('send') && call.result?.message_id !== undefined) {
      const kind = call.method.slice(4).toLowerCase();
      const caption = call.params.caption ? read(call.params.caption, call.params.parse_mode) : '';
      const text = caption ? `[${kind}] ${caption}` : `[${kind}]`;
      shown.set(id, { threadId: threadOf(call), text });
    }
  }
  return shown;
}

/** The topic a sent message landed in, as the core names it (digits). */
const threadOf = (call: ApiCall): string | undefined =>
  call.result.message_thread_id === undefined ? undefined : String(call.result.message_thread_id);

function shownByTelegram(tg: FakeTelegram, to: Address): string[] {
  return [...showing(tg, to.chatId).values()]
    .filter((m) => m.threadId === to.threadId)
    .map((m) => m.text);
}
