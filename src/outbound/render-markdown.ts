import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';
import { decodeEntities } from './plain-text.ts';

/**
 * Renders model Markdown into the HTML subset Telegram's `parse_mode: 'HTML'` accepts:
 * `<b> <i> <u> <s> <code> <pre> <a href> <blockquote> <tg-spoiler>`. Everything else is
 * converted to text (lists, headings, tables, rules) or escaped (raw HTML). Built on
 * marked's lexer; nothing here parses Markdown itself.
 */
export function markdownToTelegramHtml(markdown: string): string {
  const tokens = Lexer.lex(markdown, { gfm: true, breaks: false });
  return renderBlocks(tokens, false).trim();
}

const SAFE_HREF = /^(?:https?:\/\/|tg:|mailto:)/i;
const HR_LINE = '———';

/** Escapes text for an HTML text node or a double-quoted attribute. */
function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function safeHref(href: string): string | undefined {
  const trimmed = href.trim();
  return SAFE_HREF.test(trimmed) ? trimmed : undefined;
}

function renderBlocks(tokens: Token[], inQuote: boolean): string {
  const out: string[] = [];
  for (const token of tokens) {
    const html = renderBlock(token as MarkedToken, inQuote);
    if (html.trim() !== '') out.push(html);
  }
  return out.join('\n\n');
}

function renderBlock(token: MarkedToken, inQuote: boolean): string {
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return renderInline(token.tokens);
    case 'text':
      return token.tokens ? renderInline(token.tokens) : escapeHtml(decodeEntities(token.text));
    case 'heading':
      return `<b>${renderInline(token.tokens)}</b>`;
    case 'code':
      return renderCode(token);
    case 'blockquote': {
      const inner = renderBlocks(token.tokens, true);
      // Telegram cannot nest blockquotes: an inner quote is rendered flat inside the outer one.
      return inQuote ? inner : `<blockquote>${inner}</blockquote>`;
    }
    case 'list':
      return renderList(token, 0, inQuote);
    case 'table':
      return renderTable(token);
    case 'hr':
      return HR_LINE;
    case 'html':
      return escapeHtml(token.text.trimEnd());
    default:
      // Inline tokens never reach here from the lexer, but render them sensibly if they do.
      return renderInline([token]);
  }
}

function renderCode(token: Tokens.Code): string {
  const text = escapeHtml(token.text.replace(/\n+$/, ''));
  const lang =
    (token.lang ?? '')
      .trim()
      .split(/\s+/)[0]
      ?.replace(/[^\w+#.-]/g, '') ?? '';
  return lang ? `<pre><code class="language-${lang}">${text}</code></pre>` : `<pre>${text}</pre>`;
}

function renderList(list: Tokens.List, depth: number, inQuote: boolean): string {
  const indent = '  '.repeat(depth);
  const continuation = `\n${indent}  `;
  const start = list.ordered && typeof list.start === 'number' ? list.start : 1;
  const items = list.items.map((item, index) => {
    const box = item.checked ? '☑' : '☐';
    let marker = list.ordered ? `${start + index}.` : '•';
    if (item.task) marker = list.ordered ? `${marker} ${box}` : box;
    const chunks: string[] = [];
    let leadingList = false;
    for (const child of item.tokens as MarkedToken[]) {
      if (child.type === 'list') {
        if (chunks.length === 0) leadingList = true;
        chunks.push(renderList(child, depth + 1, inQuote));
      } else if (child.type === 'text' || child.type === 'paragraph') {
        const html = child.tokens
          ? renderInline(child.tokens)
          : escapeHtml(decodeEntities(child.text));
        if (html.trim() !== '') chunks.push(html.trim().replace(/\n/g, continuation));
      } else {
        const html = renderBlock(child, inQuote);
        if (html.trim() !== '') chunks.push(html);
      }
    }
    // A nested list that opens the item goes on its own line, under the bare marker.
    const head = leadingList ? '' : (chunks.shift() ?? '');
    const lines = [`${indent}${marker} ${head}`.trimEnd(), ...chunks];
    return lines.join('\n');
  });
  return items.join(list.loose ? '\n\n' : '\n');
}

function renderInline(tokens: Token[]): string {
  let out = '';
  for (const token of tokens as MarkedToken[]) {
    switch (token.type) {
      case 'text':
        out += token.tokens ? renderInline(token.tokens) : escapeHtml(decodeEntities(token.text));
        break;
      case 'escape':
        out += escapeHtml(token.text);
        break;
      case 'strong':
        out += `<b>${renderInline(token.tokens)}</b>`;
        break;
      case 'em':
        out += `<i>${renderInline(token.tokens)}</i>`;
        break;
      case 'del':
        out += `<s>${renderInline(token.tokens)}</s>`;
        break;
      case 'codespan':
        out += `<code>${escapeHtml(token.text)}</code>`;
        break;
      case 'br':
        out += '\n';
        break;
      case 'link': {
        const href = safeHref(token.href);
        const inner = renderInline(token.tokens);
        if (!href) out += inner;
        else out += `<a href="${escapeHtml(href)}">${inner || escapeHtml(href)}</a>`;
        break;
      }
      case 'image': {
        const href = safeHref(token.href);
        const alt = escapeHtml(decodeEntities(token.text));
        if (!href) out += alt;
        else out += `<a href="${escapeHtml(href)}">${alt || escapeHtml(href)}</a>`;
        break;
      }
      case 'html':
        out += escapeHtml(token.text);
        break;
      case 'checkbox':
        // Task markers are rendered by the list item (☐/☑).
        break;
      default: {
        const nested = (token as Tokens.Generic).tokens;
        out += nested ? renderInline(nested) : escapeHtml(String((token as Tokens.Generic).raw));
      }
    }
  }
  return out;
}

/** Visible text of inline tokens with all markup dropped (for table cells). */
function plainInline(tokens: Token[]): string {
  let out = '';
  for (const token of tokens as MarkedToken[]) {
    switch (token.type) {
      case 'text':
        out += token.tokens ? plainInline(token.tokens) : decodeEntities(token.text);
        break;
      case 'strong':
      case 'em':
      case 'del':
      case 'link':
        out += plainInline(token.tokens);
        break;
      case 'image':
        out += decodeEntities(token.text);
        break;
      case 'escape':
      case 'codespan':
      case 'html':
        out += token.text;
        break;
      case 'br':
        out += ' ';
        break;
      case 'checkbox':
        break;
      default: {
        const nested = (token as Tokens.Generic).tokens;
        out += nested ? plainInline(nested) : String((token as Tokens.Generic).raw);
      }
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** Width in code points, so an emoji counts as one column in the monospaced block. */
function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function pad(text: string, size: number, align: Tokens.TableCell['align']): string {
  const gap = size - width(text);
  if (gap <= 0) return text;
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') {
    const left = Math.floor(gap / 2);
    return ' '.repeat(left) + text + ' '.repeat(gap - left);
  }
  return text + ' '.repeat(gap);
}

function renderTable(table: Tokens.Table): string {
  const header = table.header.map((cell) => plainInline(cell.tokens));
  const rows = table.rows.map((row) => row.map((cell) => plainInline(cell.tokens)));
  const columns = Math.max(header.length, ...rows.map((row) => row.length));
  const widths: number[] = [];
  for (let c = 0; c < columns; c++) {
    widths.push(Math.max(1, width(header[c] ?? ''), ...rows.map((row) => width(row[c] ?? ''))));
  }
  const line = (cells: string[]) =>
    widths
      .map((w, c) => pad(cells[c] ?? '', w, table.align[c] ?? null))
      .join(' | ')
      .trimEnd();
  const lines = [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line)];
  return `<pre>${escapeHtml(lines.join('\n'))}</pre>`;
}
