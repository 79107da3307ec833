import type { Channel } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { terminalRenderer } from '../terminal/render.ts';

/** The channel a pack test talks through: it keeps what each chat was sent, as plain text. */
export interface TestChannel extends Channel {
  /** Every message sent to the chat so far, oldest first. */
  sent(to: Address): string[];
  /** Resolves when a message with buttons is sent next (ask_user's question). */
  nextButtons(): Promise<void>;
}

/** An in-process channel for `satchel pack test`: no network, messages kept in memory. */
export function createTestChannel(platform: string): TestChannel {
  const chats = new Map<string, string[]>();
  let buttonsShown = () => {};
  const chat = (chatId: string) => {
    const messages = chats.get(chatId) ?? [];
    chats.set(chatId, messages);
    return messages;
  };
  const add = (to: Address, text: string) => {
    const messages = chat(to.chatId);
    messages.push(text);
    return { messageId: String(messages.length) };
  };
  return {
    platform,
    capabilities: { photo: true, audio: true, voice: true, document: true, keyboard: true },
    render: terminalRenderer,
    async sendText(to, text, options) {
      if (options.keyboard) buttonsShown();
      return add(to, text);
    },
    async sendMedia(to, media) {
      const caption = media.caption ? ` ${media.caption.text}` : '';
      return add(to, `[${media.kind}]${caption}`);
    },
    sent: (to) => [...chat(to.chatId)],
    nextButtons: () =>
      new Promise<void>((resolve) => {
        buttonsShown = resolve;
      }),
  };
}
