import type { InlineButton } from '../core/ports.ts';
import { htmlToPlainText } from './plain-text.ts';
import { markdownToTelegramHtml } from './render-markdown.ts';
import { splitTelegramHtml } from './split-html.ts';

/** What a part of the pipeline asks to send: Markdown from the model, or plain text. */
export interface OutboundText {
  text: string;
  format: 'markdown' | 'plain';
  keyboard?: InlineButton[][];
}

/** One Telegram message, ready to send: HTML plus its plain-text fallback. */
export interface TextPart {
  html: string;
  plain: string;
  keyboard?: InlineButton[][];
}

const MESSAGE_LIMIT = 4096;

/**
 * Renders and splits a message into parts that each fit one Telegram message. A keyboard
 * rides on the last part, under the text it belongs to.
 */
export function composeText(message: OutboundText): TextPart[] {
  const html =
    message.format === 'markdown'
      ? markdownToTelegramHtml(message.text)
      : escapeHtml(message.text.trim());
  const parts = splitTelegramHtml(html, MESSAGE_LIMIT).map((part) => ({
    html: part,
    plain: htmlToPlainText(part),
  }));
  const last = parts.at(-1);
  if (last && message.keyboard) Object.assign(last, { keyboard: message.keyboard });
  return parts;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
