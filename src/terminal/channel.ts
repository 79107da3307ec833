import { ChannelError } from '../core/errors.ts';
import type { Channel, InlineButton, MediaMessage, SendTextOptions } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { continuation, stablePrefix } from './live-text.ts';
import { terminalRenderer } from './render.ts';
import { PLAIN_STYLE, type TerminalStyle } from './tty.ts';

/** Characters that show nothing. */
const INVISIBLE = /[\s\u00a0\u200b-\u200d\u2060\ufeff]/g;

/** The one conversation of `satchel chat` (SPEC §10: address `local`). */
export const LOCAL_ADDRESS: Address = { platform: 'local', chatId: 'local' };

/** Options shown under a message: a number typed next picks one. */
export interface ShownOptions {
  /** The message that carries them (a press names it, as a Telegram press does). */
  messageId: string;
  buttons: InlineButton[];
}

export interface TerminalChannel extends Channel {
  /** Prints a line of satchel's own (a banner, a hint), on a line of its own. */
  note(text: string): void;
  /** The terminal itself showed something on the current line (`^C`): a message starts below. */
  echoed(): void;
  /** The options shown last and not chosen yet, if any. */
  readonly options: ShownOptions | undefined;
  /** Takes option `number` (1-based) of the options shown last; undefined when there is none. */
  choose(choice: number | string): { messageId: string; data: string } | undefined;
  /** Ends the options shown last (their question is settled): what is typed next is not a press. */
  dropOptions(): void;
  /** Called whenever options are shown. */
  onOptions?: (options: ShownOptions) => void;
}

/**
 * The terminal as a channel (`satchel chat`): text only. A message is printed as plain
 * text; a reply streams through drafts, each printing only what is new and settled (see
 * live-text.ts), and the final text prints what the drafts had not. Buttons are printed as
 * numbered options. Photos, audio and documents are declared unsupported, so the outbox
 * degrades them to text; there are no edits, deletions, chat actions or topics.
 */
export function createTerminalChannel(
  write: (text: string) => void,
  style: Pick<TerminalStyle, 'note'> = PLAIN_STYLE,
): TerminalChannel {
  let lastId = 0;
  /** The last character printed: a new message starts on a line of its own. */
  let atLineStart = true;
  /** What the drafts of the reply being written have printed so far. */
  let drafted: string | undefined;
  let options: ShownOptions | undefined;
  /** The message printed last, while nothing was printed after it (to not print it twice). */
  let lastPrinted: string | undefined;

  const out = (text: string) => {
    if (text === '') return;
    write(text);
    atLineStart = text.endsWith('\n');
    lastPrinted = undefined;
  };
  const newLine = () => {
    if (!atLineStart) out('\n');
  };

  function showOptions(messageId: string, keyboard: InlineButton[][]): void {
    const buttons = keyboard.flat();
    if (buttons.length === 0) return;
    out(
      `${buttons.map((b, i) => `  ${i + 1}. ${b.text}${b.key ? ` [${b.key}]` : ''}`).join('\n')}\n`,
    );
    out(hint(buttons));
    options = { messageId, buttons };
    channel.onOptions?.(options);
  }

  const hint = (buttons: InlineButton[]) => {
    const keys = buttons.flatMap((b) => (b.key ? [b.key] : []));
    const or = keys.length > 0 ? ` or ${keys.join('/')}` : '';
    return `${style.note(`(type a number, 1–${buttons.length}${or}, to choose)`)}\n`;
  };
  const printed = (plain: string, keyboard: InlineButton[][] | undefined) =>
    JSON.stringify([plain, keyboard ?? null]);

  const channel: TerminalChannel = {
    platform: LOCAL_ADDRESS.platform,
    capabilities: { photo: false, audio: false, voice: false, document: false, keyboard: true },
    render: terminalRenderer,

    async sendText(_to: Address, text: string, opts: SendTextOptions) {
      // Its own rendering is plain text already (render.ts).
      const plain = text;
      // As every channel does: a message of nothing is a bug upstream, never printed.
      if (plain.replace(INVISIBLE, '') === '')
        throw new ChannelError('refused', 'sendText', 'the message is empty');
      const messageId = String(++lastId);
      if (drafted !== undefined && drafted.length > plain.length && drafted.startsWith(plain)) {
        // A long reply's first part, shown whole (and more) by its drafts: the next part
        // continues what they showed after it.
        const after = drafted.slice(plain.length);
        drafted = after.trim() === '' ? undefined : after.trimStart();
        if (drafted === undefined) newLine();
        return { messageId };
      }
      // The same question with the same options, still unanswered just above (the picker
      // again, for a message typed before choosing): only the hint is repeated.
      const key = printed(plain, opts.keyboard);
      if (options && drafted === undefined && lastPrinted === key) {
        out(hint(options.buttons));
        options = { ...options, messageId };
        lastPrinted = key;
        return { messageId };
      }
      const rest = drafted === undefined ? undefined : continuation(drafted, plain);
      drafted = undefined;
      if (rest === undefined) {
        newLine();
        out(plain);
      } else out(rest);
      out('\n');
      if (opts.keyboard) showOptions(messageId, opts.keyboard);
      lastPrinted = key;
      return { messageId };
    },

    // Not reached while the capabilities say no: degrade turns media into text first.
    async sendMedia(_to: Address, media: MediaMessage) {
      const where = 'url' in media.source ? media.source.url : media.source.path;
      const caption = media.caption?.text ?? '';
      newLine();
      out(`[${media.kind}: ${where}]${caption ? ` ${caption}` : ''}\n`);
      const messageId = String(++lastId);
      if (media.keyboard) showOptions(messageId, media.keyboard);
      return { messageId };
    },

    async sendDraft(_to: Address, _draftId: number, text: string) {
      const settled = stablePrefix(text);
      if (drafted !== undefined && settled.startsWith(drafted)) {
        out(settled.slice(drafted.length));
        drafted = settled;
        return;
      }
      // Not a continuation (Markdown that renders differently for a moment, a model that
      // started over): nothing is printed until the text continues what is shown; the final
      // text settles it.
      if (drafted !== undefined) return;
      newLine();
      out(settled);
      drafted = settled;
    },

    async answerCallback(_callbackId: string, text?: string) {
      if (text) channel.note(`(${text})`);
    },

    note(text: string) {
      newLine();
      out(`${style.note(text)}\n`);
    },

    echoed() {
      atLineStart = false;
    },

    get options() {
      return options;
    },

    dropOptions() {
      options = undefined;
    },

    /** The shown option numbered `choice`, or the one whose key it is (`y`), taken. */
    choose(choice: number | string) {
      const button =
        typeof choice === 'number'
          ? options?.buttons[choice - 1]
          : options?.buttons.find((b) => b.key === choice);
      if (!options || !button) return undefined;
      const { messageId } = options;
      options = undefined;
      return { messageId, data: button.data };
    },
  };
  return channel;
}
