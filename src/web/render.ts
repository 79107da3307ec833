import type { Renderer, TextPart } from '../core/ports.ts';
import { htmlDialect } from '../outbound/html-dialect.ts';
import { type Dialect, renderMarkdown } from '../outbound/markdown.ts';
import { escapeHtml, safeHref, visibleText } from './markup.ts';

/**
 * Markdown as the web chat shows it: the safe HTML of markup.ts. Every piece of model text
 * goes through `escape`; the only tags are the dialect's own. Line breaks stay newlines (the
 * page keeps them, as a chat does).
 */
const WEB: Dialect = { ...htmlDialect(escapeHtml, safeHref), nestQuotes: true };

/** Characters that show nothing: a message of only these is not shown. */
const INVISIBLE = /[\s\u00a0\u200b-\u200d\u2060\ufeff]/g;

const parts = (html: string): TextPart[] => {
  const plain = visibleText(html);
  return plain.replace(INVISIBLE, '') === '' ? [] : [{ text: html, plain }];
};

/** Renders model Markdown (or escapes plain text) to the web chat's markup. */
export function renderWebHtml(text: string, format: 'markdown' | 'plain'): string {
  return format === 'markdown' ? renderMarkdown(text, WEB) : escapeHtml(text.trim());
}

/** A browser has no length limit worth splitting at: one part per message. */
export const webRenderer: Renderer = {
  text(message) {
    const result = parts(renderWebHtml(message.text, message.format));
    const last = result.at(-1);
    if (last && message.keyboard) last.keyboard = message.keyboard;
    return result;
  },
  caption(markdown) {
    const [caption] = parts(renderWebHtml(markdown, 'markdown'));
    return { ...(caption ? { caption } : {}), rest: [] };
  },
};
