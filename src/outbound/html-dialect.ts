import type { Dialect } from './markdown.ts';

/**
 * The HTML marks both HTML channels use (Telegram's `parse_mode: 'HTML'` subset and the web
 * chat's markup): `<b> <i> <s> <code> <pre> <a href> <blockquote>`. Each channel brings how it
 * escapes text (`escapeText` escapes a link's target too) and which links it lets through.
 */
export function htmlDialect(
  escapeText: (text: string) => string,
  safeHref: (href: string) => string | undefined,
): Dialect {
  return {
    escape: escapeText,
    bold: (inner) => `<b>${inner}</b>`,
    italic: (inner) => `<i>${inner}</i>`,
    strike: (inner) => `<s>${inner}</s>`,
    code: (text) => `<code>${text}</code>`,
    pre: (text) => `<pre>${text}</pre>`,
    link: (href, inner) => `<a href="${escapeText(href)}">${inner}</a>`,
    quote: (inner) => `<blockquote>${inner}</blockquote>`,
    safeHref,
  };
}
