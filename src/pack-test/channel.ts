import { decodeButton } from '../core/button-data.ts';
import type { Channel, InlineButton } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { terminalRenderer } from '../terminal/render.ts';

/** A message the bot sent that has buttons: where a `press:` turn presses. */
export interface ShownKeyboard {
  messageId: string;
  /** The message's text, without its buttons line. */
  text: string;
  buttons: InlineButton[];
}

/** The channel a pack test talks through: it keeps what each chat was sent, as plain text. */
export interface TestChannel extends Channel {
  /**
   * Every message sent to the chat so far, oldest first; a message with buttons ends with a
   * line of their labels, `[Again] [Good]`, as the user sees them.
   */
  sent(to: Address): string[];
  /** The last message sent to the chat that has buttons, if any. */
  lastKeyboard(to: Address): ShownKeyboard | undefined;
  /** What the bot told the presser of each button so far (a toast: "already answered"). */
  notices(): string[];
  /**
   * Resolves when a question with `ask_user`'s buttons is sent next: the turn that sent it
   * now waits for a press. Buttons that do not wait (a keyboard, an action) do not count.
   */
  nextQuestion(): Promise<void>;
}

/** An in-process channel for `satchel pack test`: no network, messages kept in memory. */
export function createTestChannel(platform: string): TestChannel {
  const chats = new Map<string, { text: string; keyboard?: ShownKeyboard }[]>();
  const notices: string[] = [];
  let questionShown = () => {};
  const chat = (chatId: string) => {
    const messages = chats.get(chatId) ?? [];
    chats.set(chatId, messages);
    return messages;
  };
  const add = (to: Address, text: string, keyboard?: InlineButton[][]) => {
    const messages = chat(to.chatId);
    const messageId = String(messages.length + 1);
    const buttons = keyboard?.flat() ?? [];
    if (buttons.length === 0) messages.push({ text });
    else {
      const labels = buttons.map((b) => `[${b.text}]`).join(' ');
      messages.push({ text: `${text}\n${labels}`, keyboard: { messageId, text, buttons } });
    }
    return { messageId };
  };
  return {
    platform,
    capabilities: { photo: true, audio: true, voice: true, document: true, keyboard: true },
    render: terminalRenderer,
    async sendText(to, text, options) {
      const sent = add(to, text, options.keyboard);
      if (options.keyboard?.flat().some((b) => decodeButton(b.data)?.type === 'ask'))
        questionShown();
      return sent;
    },
    async sendMedia(to, media) {
      const caption = media.caption ? ` ${media.caption.text}` : '';
      return add(to, `[${media.kind}]${caption}`);
    },
    async answerCallback(_callbackId, text) {
      if (text) notices.push(text);
    },
    sent: (to) => chat(to.chatId).map((m) => m.text),
    lastKeyboard: (to) => chat(to.chatId).findLast((m) => m.keyboard)?.keyboard,
    notices: () => [...notices],
    nextQuestion: () =>
      new Promise<void>((resolve) => {
        questionShown = resolve;
      }),
  };
}
