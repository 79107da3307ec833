import { htmlDialect } from '../outbound/html-dialect.ts';
import { type Dialect, renderMarkdown } from '../outbound/markdown.ts';

/** Escapes text for an HTML text node or a double-quoted attribute. */
function escapeAttribute(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const SAFE_HREF = /^(?:https?:\/\/|tg:|mailto:)/i;

/**
 * The HTML subset Telegram's `parse_mode: 'HTML'` accepts: `<b> <i> <s> <code> <pre>
 * <a href> <blockquote>`. Telegram cannot nest blockquotes: an inner quote is rendered flat
 * inside the outer one.
 */
const TELEGRAM_HTML: Dialect = {
  ...htmlDialect(escapeAttribute, (href) => (SAFE_HREF.test(href) ? href : undefined)),
  pre: (text, lang) =>
    lang ? `<pre><code class="language-${lang}">${text}</code></pre>` : `<pre>${text}</pre>`,
};

/** Renders model Markdown into Telegram's HTML subset (see outbound/markdown.ts). */
export function markdownToTelegramHtml(markdown: string): string {
  return renderMarkdown(markdown, TELEGRAM_HTML);
}
