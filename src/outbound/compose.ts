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

export const MESSAGE_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;

/** What the user sees when the model's answer has nothing to show. */
export const NO_ANSWER = '(no answer)';
/** Characters Telegram does not count as text: a message of only these is refused as empty. */
const INVISIBLE = /[\s\u00a0\u200b-\u200d\u2060\ufeff]/g;
/** ASCII punctuation, each of which a backslash makes literal in Markdown. */
const MARKDOWN_PUNCTUATION = /[!-/:-@[-`{-~]/g;

export const markdown = (text: string): OutboundText => ({ text, format: 'markdown' });
export const plain = (text: string): OutboundText => ({ text, format: 'plain' });

/** Renders a message to Telegram HTML (Markdown through the parser, plain text escaped). */
export function renderHtml(message: Pick<OutboundText, 'text' | 'format'>): string {
  return message.format === 'markdown'
    ? markdownToTelegramHtml(message.text)
    : escapeHtml(message.text.trim());
}

/**
 * Renders and splits a message into parts that each fit one Telegram message. A keyboard
 * rides on the last part, under the text it belongs to.
 */
export function composeText(message: OutboundText): TextPart[] {
  const parts = toParts(renderHtml(message), MESSAGE_LIMIT);
  const last = parts.at(-1);
  if (last && message.keyboard) last.keyboard = message.keyboard;
  return parts;
}

/**
 * The parts of the model's answer as sent, `suffix` (Markdown) after it: the answer's
 * Markdown, unless it renders to nothing visible (`#`, `> `, an empty code block, a link
 * with a blank label): then its literal text, and when even that shows nothing, NO_ANSWER.
 * An answer never silently becomes no message. Rendered once when it shows as written.
 */
export function answerParts(text: string, suffix = ''): TextPart[] {
  const parts = composeText(markdown(text));
  if (parts.length > 0) return suffix ? composeText(markdown(text + suffix)) : parts;
  const literal = text.replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`);
  const shown = composeText(markdown(literal)).length > 0 ? literal : NO_ANSWER;
  return composeText(markdown(shown + suffix));
}

/** A caption fits 1024 units; what does not fit follows as text messages. */
export function composeCaption(caption: string): { caption?: TextPart; rest: TextPart[] } {
  const [first, ...overflow] = toParts(
    renderHtml({ text: caption, format: 'markdown' }),
    CAPTION_LIMIT,
  );
  const rest = overflow.length
    ? toParts(overflow.map((p) => p.html).join('\n'), MESSAGE_LIMIT)
    : [];
  return { ...(first ? { caption: first } : {}), rest };
}

/** The parts of a message; a part with nothing visible (Telegram would refuse it) is left out. */
function toParts(html: string, limit: number): TextPart[] {
  return splitTelegramHtml(html, limit)
    .map((part) => ({ html: part, plain: htmlToPlainText(part) }))
    .filter((part) => part.plain.replace(INVISIBLE, '') !== '');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
