import type { OutboundText, Renderer, TextPart } from '../core/ports.ts';
import { htmlToPlainText } from './plain-text.ts';
import { markdownToTelegramHtml } from './render-markdown.ts';
import { splitTelegramHtml } from './split-html.ts';

/** A message's visible length limit, in UTF-16 units after parsing. */
export const MESSAGE_LIMIT = 4096;
/** A media caption's limit. */
export const CAPTION_LIMIT = 1024;

/** Characters Telegram does not count as text: a message of only these is refused as empty. */
const INVISIBLE = /[\s\u00a0\u200b-\u200d\u2060\ufeff]/g;

/** Renders a message to Telegram HTML (Markdown through the parser, plain text escaped). */
export function renderHtml(message: Pick<OutboundText, 'text' | 'format'>): string {
  return message.format === 'markdown'
    ? markdownToTelegramHtml(message.text)
    : escapeHtml(message.text.trim());
}

/**
 * Telegram's way of showing text (SPEC §4): Markdown rendered to its HTML subset, split so
 * each message is ≤ 4096 units and each caption ≤ 1024, never inside a tag or a code block;
 * each part carries its plain-text fallback for a refused markup.
 */
export const telegramRenderer: Renderer = {
  text(message) {
    const parts = toParts(renderHtml(message), MESSAGE_LIMIT);
    const last = parts.at(-1);
    if (last && message.keyboard) last.keyboard = message.keyboard;
    return parts;
  },

  caption(markdown) {
    const [first, ...overflow] = toParts(
      renderHtml({ text: markdown, format: 'markdown' }),
      CAPTION_LIMIT,
    );
    const rest = overflow.length
      ? toParts(overflow.map((p) => p.text).join('\n'), MESSAGE_LIMIT)
      : [];
    return { ...(first ? { caption: first } : {}), rest };
  },
};

/** The parts of a message; a part with nothing visible (Telegram would refuse it) is left out. */
function toParts(html: string, limit: number): TextPart[] {
  return splitTelegramHtml(html, limit)
    .map((part) => ({ text: part, plain: htmlToPlainText(part) }))
    .filter((part) => part.plain.replace(INVISIBLE, '') !== '');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
