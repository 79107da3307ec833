import { readFileSync } from 'node:fs';
import type { StoredLine } from '../core/edge-conversations.ts';
import { ChannelError, UnreadableFileError } from '../core/errors.ts';
import type { Channel, InlineButton, MediaMessage, SendTextOptions } from '../core/ports.ts';
import { type Address, addressKey } from '../core/types.ts';
import { readVoiceText } from '../core/voice-label.ts';
import { markupProblem, visibleText } from './markup.ts';
import { renderWebHtml, webRenderer } from './render.ts';
import {
  type Attachment,
  type Body,
  createTranscript,
  type Entry,
  type Transcript,
} from './transcript.ts';

/** The platform of the web chat's addresses and origins. */
export const WEB_PLATFORM = 'web';

/** How many entries of a conversation a page that (re)connects is shown. */
export const TRANSCRIPT_LIMIT = 200;

/**
 * How often a streamed reply updates the page: a browser has no edit limit, so the text
 * grows about 8 times a second (SPEC §16 asks for at least 4) while the model writes that
 * fast, instead of Telegram's once a second. Faster would only send more JSON for the same
 * words: updates coalesce, each carrying the newest text.
 */
export const WEB_STREAM_INTERVAL_MS = 125;

/** Characters that show nothing: a message of only these is refused, as a chat would. */
const INVISIBLE = /[\s\u00a0\u200b-\u200d\u2060\ufeff]/g;

export interface WebChannel extends Channel {
  /** The conversation at `to` as its pages show it. */
  conversation(to: Address): Transcript;
  /**
   * Shows a line the owner typed, or a file they sent with its caption (before it is
   * handled, so the page shows it at once). `source`: its origin key — a replayed line the
   * stored history shows already is not shown again; a voice message's transcript finds its
   * bubble by it (`showTranscript`).
   */
  showTyped(to: Address, text: string, attachment?: Attachment, source?: string): void;
  /**
   * The next text sent to `to` is a failed turn's error line (shown with a Retry), the
   * answer to the owner's message `source`: it goes at the end of that exchange, above a
   * line typed meanwhile.
   */
  failing(to: Address, source: string): void;
}

/**
 * The web chat as a channel: what it sends goes into the conversation's transcript and out
 * to every page listening (http.ts streams it as server-sent events). Text in its own
 * markup is checked first (markup.ts): anything else is `bad_markup`, and the outbox sends
 * the plain words instead, so nothing but that markup reaches a page. Drafts stream a
 * reply; buttons are shown under their message and pressed from the page; a chat action
 * (typing) tells the pages satchel is working. A voice note from a file (a spoken answer,
 * SPEC §18) is kept by `keep` and played in the page; photos, audio and documents are declared
 * unsupported (the outbox degrades them to text); there are no topics. Message ids start at the clock's time so a restart never reuses one an
 * outbox row still names; the page knows them as numbers, the core as their digits.
 *
 * A conversation's transcript starts, the first time this run touches it, from `stored`:
 * the lines its sessions keep (what the owner said, the answers rendered as live ones are),
 * so a page opened after a restart shows what came before. It is read once: what this run
 * adds comes live, never from the store as well, so nothing shows twice; a line an earlier
 * run stored and a replay hands on again is shown once, where it was stored, as it was sent.
 */
export function createWebChannel(
  now: () => number,
  {
    keep,
    stored = () => [],
  }: {
    /** Keeps a voice note's bytes where the page can fetch them (uploads.ts); returns its id. */
    keep?: (data: Buffer, ext: string) => string;
    /** What a conversation's sessions keep, shown first when this run touches it. */
    stored?: (to: Address) => readonly StoredLine[];
  } = {},
): WebChannel {
  const conversations = new Map<string, Transcript>();
  /** The owner's lines shown from the store, by origin key: their entry's id. */
  const storedSources = new Map<string, number>();
  /** The owner's voice messages shown this run, by origin key: their entry's id. */
  const voiceSources = new Map<string, number>();
  let lastId = now();

  const conversation = (to: Address): Transcript => {
    const key = addressKey(to);
    let found = conversations.get(key);
    if (!found) {
      found = createTranscript(TRANSCRIPT_LIMIT, stored(to).flatMap(earlierEntry));
      conversations.set(key, found);
    }
    return found;
  };

  /** A stored line as the page shows it; none when an answer renders to nothing. */
  function earlierEntry({ role, text, source, at, failed }: StoredLine): Entry[] {
    if (role === 'user') {
      const id = ++lastId;
      if (source) storedSources.set(source, id);
      // A voice message is stored as its labelled transcript: shown as the recording it was.
      const voice = readVoiceText(text);
      if (voice)
        return [
          {
            kind: 'user',
            id,
            text: voice.caption,
            at,
            ...(source ? { source } : {}),
            attachment: { kind: 'voice', seconds: 0, transcript: voice.transcript },
          },
        ];
      return [{ kind: 'user', id, text, at, ...(source ? { source } : {}) }];
    }
    const html = renderWebHtml(text, 'markdown');
    if (visibleText(html).replace(INVISIBLE, '') === '') return [];
    return [{ ...botEntry(++lastId, { html }), at, ...(failed ? { failed } : {}) }];
  }

  /** Conversations whose next text is a failure line (`failing`): the message it answers. */
  const failingAt = new Map<string, string>();

  /** The body of a text, or the ChannelError the channel refuses it with. */
  function bodyOf(method: string, text: string, formatted: boolean): Body {
    const visible = formatted ? visibleText(text) : text;
    if (visible.replace(INVISIBLE, '') === '')
      throw new ChannelError('refused', method, 'the message is empty');
    if (!formatted) return { text };
    const problem = markupProblem(text);
    if (problem) throw new ChannelError('bad_markup', method, problem);
    return { html: text };
  }

  /** satchel's message; `job`: the pack whose scheduled job sent it (`SendTextOptions.job`). */
  const botEntry = (
    id: number,
    body: Body,
    { keyboard, voice, job }: { keyboard?: InlineButton[][]; voice?: string; job?: string } = {},
  ): Entry => ({
    kind: 'bot',
    id,
    at: now(),
    ...body,
    ...(keyboard?.length ? { buttons: keyboard } : {}),
    ...(voice ? { voice } : {}),
    ...(job ? { job } : {}),
  });

  /** A voice note from a file: kept for the page, shown as a player (with its caption). */
  function sendVoice(to: Address, media: MediaMessage, caption: Body | undefined) {
    if (!('path' in media.source))
      throw new ChannelError('refused', 'sendMedia', 'a voice note must be a file');
    const voice = keep!(readVoice(media.source.path), '.ogg');
    const messageId = ++lastId;
    conversation(to).add(
      botEntry(messageId, caption ?? { text: '' }, {
        keyboard: media.keyboard,
        voice,
        job: media.job,
      }),
    );
    return Promise.resolve({ messageId: String(messageId) });
  }

  const channel: WebChannel = {
    platform: WEB_PLATFORM,
    capabilities: { photo: false, audio: false, voice: !!keep, document: false, keyboard: true },
    render: webRenderer,
    streamIntervalMs: WEB_STREAM_INTERVAL_MS,

    async sendText(to: Address, text: string, options: SendTextOptions) {
      const body = bodyOf('sendText', text, options.formatted);
      const messageId = ++lastId;
      const answers = failingAt.get(addressKey(to));
      failingAt.delete(addressKey(to));
      const entry = botEntry(messageId, body, options);
      if (answers === undefined) conversation(to).add(entry);
      else conversation(to).add({ ...entry, failed: true } as Entry, answers);
      return { messageId: String(messageId) };
    },

    // Voice plays in the page; the rest is not reached while the capabilities say no
    // (degrade turns it into text first).
    async sendMedia(to: Address, media: MediaMessage) {
      const caption = media.caption
        ? bodyOf('sendMedia', media.caption.text, media.caption.formatted)
        : undefined;
      if (media.kind === 'voice' && keep) return sendVoice(to, media, caption);
      const label = `[${media.kind}]`;
      const body: Body =
        caption && 'html' in caption
          ? { html: `${label} ${caption.html}` }
          : { text: caption ? `${label} ${caption.text}` : label };
      const messageId = ++lastId;
      conversation(to).add(botEntry(messageId, body, { keyboard: media.keyboard, job: media.job }));
      return { messageId: String(messageId) };
    },

    async editText(to: Address, id: string, text: string, options: SendTextOptions) {
      const transcript = conversation(to);
      const messageId = Number(id);
      const shown = transcript.find(messageId);
      if (shown?.kind !== 'bot') throw new ChannelError('gone', 'editText', 'no such message');
      // An edit keeps when the message came and whose job sent it.
      const job = options.job ?? shown.job;
      const entry = {
        ...botEntry(messageId, bodyOf('editText', text, options.formatted), { ...options, job }),
        at: shown.at,
      };
      if (JSON.stringify(entry) === JSON.stringify(shown))
        throw new ChannelError('not_modified', 'editText', 'the message shows this already');
      transcript.replace(entry);
    },

    async deleteMessage(to: Address, id: string) {
      const messageId = Number(id);
      if (conversation(to).find(messageId)?.kind !== 'bot' || !conversation(to).remove(messageId))
        throw new ChannelError('gone', 'deleteMessage', 'no such message');
    },

    async sendDraft(to: Address, _draftId: number, text: string, options: { formatted: boolean }) {
      conversation(to).draft(bodyOf('sendDraft', text, options.formatted));
    },

    // The turn's typing action: the page shows a working indicator until satchel's next message.
    async sendChatAction(to: Address) {
      conversation(to).working();
    },

    async answerCallback(_callbackId: string, text?: string) {
      // The press names no conversation: the notice goes to every page (there is one owner).
      if (text) for (const transcript of conversations.values()) transcript.notice(text);
    },

    conversation,

    failing(to: Address, source: string) {
      failingAt.set(addressKey(to), source);
    },

    showTyped(to: Address, text: string, attachment?: Attachment, source?: string) {
      const transcript = conversation(to);
      // Replayed, and shown from the store already: shown as sent (its file too), in its place.
      const stored = source === undefined ? undefined : storedSources.get(source);
      // A recording shown from the store keeps the words it was stored with.
      const before = stored === undefined ? undefined : transcript.find(stored);
      const heard =
        before?.kind === 'user' && before.attachment?.kind === 'voice'
          ? before.attachment.transcript
          : undefined;
      const shown =
        attachment?.kind === 'voice' && heard !== undefined
          ? { ...attachment, transcript: heard }
          : attachment;
      const entry = (id: number): Entry => ({
        kind: 'user',
        id,
        text,
        at: now(),
        ...(shown ? { attachment: shown } : {}),
        ...(source ? { source } : {}),
      });
      let id = stored;
      if (id === undefined || !transcript.replace(entry(id))) {
        id = ++lastId;
        transcript.add(entry(id));
      }
      if (attachment?.kind === 'voice' && source !== undefined) voiceSources.set(source, id);
    },

    // The words of a voice message join its bubble, live and in what a reload is shown.
    showTranscript(to: Address, source: string, text: string) {
      const id = voiceSources.get(source);
      if (id === undefined) return;
      voiceSources.delete(source);
      const transcript = conversation(to);
      const shown = transcript.find(id);
      if (shown?.kind !== 'user' || shown.attachment?.kind !== 'voice') return;
      transcript.replace({ ...shown, attachment: { ...shown.attachment, transcript: text } });
    },
  };
  return channel;
}

/** A local file's bytes, or the UnreadableFileError the outbox expects. */
function readVoice(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new UnreadableFileError(`"${file.split(/[\\/]/).at(-1)}" cannot be read`, error);
  }
}
