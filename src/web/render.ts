import type { Renderer, TextPart } from '../core/ports.ts';
import { htmlDialect } from '../outbound/html-dialect.ts';
import { type Dialect, renderMarkdown } from '../outbound/markdown.ts';
import { escapeHtml, safeHref, visibleText } from './markup.ts';

/**
 * Markdown as the web chat shows it: the safe HTML of markup.ts. Every piece of model text
 * goes through `escape`; the only tags are the dialect's own. Line breaks stay newlines (the
 * page keeps them, as a chat does). Unlike Telegram it has real tables, a fenced block's
 * language (`data-lang`, which the page labels and highlights) and math (`data-math`: the
 * TeX as text, which the page typesets); page/rich.js does both in the browser.
 */
const WEB: Dialect = {
  ...htmlDialect(escapeHtml, safeHref),
  nestQuotes: true,
  pre: (text, lang) =>
    lang ? `<pre data-lang="${escapeHtml(lang.slice(0, 32))}">${text}</pre>` : `<pre>${text}</pre>`,
  table: (header, rows, align) => {
    const cell = (tag: 'th' | 'td', at: number) => (inner: string) => {
      const side = align[at];
      return `<${tag}${side ? ` align="${side}"` : ''}>${inner}</${tag}>`;
    };
    const row = (tag: 'th' | 'td', cells: string[]) =>
      `<tr>${cells.map((inner, at) => cell(tag, at)(inner)).join('')}</tr>`;
    const body = rows.map((r) => row('td', r)).join('');
    return `<table><thead>${row('th', header)}</thead>${body ? `<tbody>${body}</tbody>` : ''}</table>`;
  },
  math: (tex, display) =>
    `<span data-math="${display ? 'display' : 'inline'}">${escapeHtml(tex)}</span>`,
};

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
