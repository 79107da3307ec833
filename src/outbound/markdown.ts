import { Lexer, Marked, type MarkedToken, type Token, type Tokens } from 'marked';
// marked leaves character references in its text tokens: they are decoded before escaping.
import { decodeEntities } from './html-entities.ts';
import { mathExtensions, mathOf } from './markdown-math.ts';

/**
 * How a channel marks up rendered Markdown. `escape` makes model text safe to place in the
 * channel's markup (plain text: as it is); every other mark wraps text already escaped.
 */
export interface Dialect {
  escape(text: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  strike(inner: string): string;
  code(text: string): string;
  /** A preformatted block; `lang` only for fenced code that names one (already cleaned). */
  pre(text: string, lang?: string): string;
  /** A link to `href` (raw; the dialect escapes it); `inner` is its escaped, marked-up label. */
  link(href: string, inner: string): string;
  quote(inner: string): string;
  /** A link target the channel lets through; undefined drops the link and keeps its text. */
  safeHref(href: string): string | undefined;
  /** Whether a quote inside a quote keeps its own mark (Telegram cannot nest them). */
  nestQuotes?: boolean;
  /**
   * A table with its cells marked up (escaped); `align` per column. Without it a table is
   * aligned plain text in `pre`.
   */
  table?(header: string[], rows: string[][], align: Tokens.Table['align']): string;
  /**
   * A TeX formula (raw; the dialect escapes it), `display` for `$$…$$`. Without it `$…$`
   * is not read as math at all: the dollars stay text.
   */
  math?(tex: string, display: boolean): string;
}

/**
 * Markdown as plain text shows it (a terminal, or words to be spoken): the words without
 * markers, lists with bullets, code as it is, and a link's target after its label (so it
 * survives without markup).
 */
export const PLAIN: Dialect = {
  escape: (text) => text,
  bold: (inner) => inner,
  italic: (inner) => inner,
  strike: (inner) => inner,
  code: (text) => text,
  pre: (text) => text,
  link: (href, inner) => (inner === href ? href : `${inner} (${href})`),
  quote: (inner) => inner,
  safeHref: (href) => (href === '' ? undefined : href),
};

/**
 * Renders model Markdown for a channel: the structure (paragraphs, lists with bullets,
 * headings as bold, tables as aligned preformatted text, rules) is the same everywhere; the
 * dialect marks it up. Raw HTML in the Markdown is escaped like any text. Built on marked's
 * lexer; nothing here parses Markdown itself.
 */
export function renderMarkdown(markdown: string, dialect: Dialect): string {
  const tokens = dialect.math
    ? withMath.lexer(markdown)
    : Lexer.lex(markdown, { gfm: true, breaks: false });
  return new Walker(dialect).blocks(tokens, false).trim();
}

/** The lexer of a dialect that typesets math: `$…$` and `$$…$$` are `math` tokens. */
const withMath = new Marked({ gfm: true, breaks: false, extensions: mathExtensions });

const HR_LINE = '———';

/** The dialect's mark for each kind of inline emphasis marked reads. */
const EMPHASIS = { strong: 'bold', em: 'italic', del: 'strike' } as const;

class Walker {
  constructor(private readonly d: Dialect) {}

  blocks(tokens: Token[], inQuote: boolean): string {
    const out: string[] = [];
    for (const token of tokens) {
      const text = this.block(token as MarkedToken, inQuote);
      if (text.trim() !== '') out.push(text);
    }
    return out.join('\n\n');
  }

  block(token: MarkedToken, inQuote: boolean): string {
    const { d } = this;
    const math = mathOf(token);
    if (math) return d.math ? d.math(math.text, true) : d.escape(math.raw);
    switch (token.type) {
      case 'space':
      case 'def':
        return '';
      case 'paragraph':
        return this.inline(token.tokens);
      case 'text':
        return token.tokens ? this.inline(token.tokens) : d.escape(decodeEntities(token.text));
      case 'heading':
        return d.bold(this.inline(token.tokens));
      case 'code':
        return this.code(token);
      case 'blockquote': {
        const inner = this.blocks(token.tokens, true);
        return inQuote && !d.nestQuotes ? inner : d.quote(inner);
      }
      case 'list':
        return this.list(token, 0, inQuote);
      case 'table':
        return d.table ? this.table(d.table, token) : d.pre(d.escape(tableText(token)));
      case 'hr':
        return HR_LINE;
      case 'html':
        return d.escape(token.text.trimEnd());
      default:
        // Inline tokens never reach here from the lexer, but render them sensibly if they do.
        return this.inline([token]);
    }
  }

  code(token: Tokens.Code): string {
    const text = this.d.escape(token.text.replace(/\n+$/, ''));
    const lang =
      (token.lang ?? '')
        .trim()
        .split(/\s+/)[0]
        ?.replace(/[^\w+#.-]/g, '') ?? '';
    return lang ? this.d.pre(text, lang) : this.d.pre(text);
  }

  table(mark: NonNullable<Dialect['table']>, table: Tokens.Table): string {
    const cells = (row: Tokens.TableCell[]) => row.map((cell) => this.inline(cell.tokens));
    return mark(cells(table.header), table.rows.map(cells), table.align);
  }

  list(list: Tokens.List, depth: number, inQuote: boolean): string {
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
          chunks.push(this.list(child, depth + 1, inQuote));
        } else if (child.type === 'text' || child.type === 'paragraph') {
          const text = child.tokens
            ? this.inline(child.tokens)
            : this.d.escape(decodeEntities(child.text));
          if (text.trim() !== '') chunks.push(text.trim().replace(/\n/g, continuation));
        } else {
          const text = this.block(child, inQuote);
          if (text.trim() !== '') chunks.push(text);
        }
      }
      // A nested list that opens the item goes on its own line, under the bare marker.
      const head = leadingList ? '' : (chunks.shift() ?? '');
      return [`${indent}${marker} ${head}`.trimEnd(), ...chunks].join('\n');
    });
    return items.join(list.loose ? '\n\n' : '\n');
  }

  inline(tokens: Token[]): string {
    const { d } = this;
    let out = '';
    for (const token of tokens as MarkedToken[]) {
      const math = mathOf(token);
      if (math) {
        out += d.math ? d.math(math.text, math.display) : d.escape(math.raw);
        continue;
      }
      switch (token.type) {
        case 'text':
          out += token.tokens ? this.inline(token.tokens) : d.escape(decodeEntities(token.text));
          break;
        case 'escape':
          out += d.escape(token.text);
          break;
        case 'strong':
        case 'em':
        case 'del':
          out += d[EMPHASIS[token.type]](this.inline(token.tokens));
          break;
        case 'codespan':
          out += d.code(d.escape(token.text));
          break;
        case 'br':
          out += '\n';
          break;
        case 'link': {
          const href = d.safeHref(token.href.trim());
          const inner = this.inline(token.tokens);
          out += href ? d.link(href, inner || d.escape(href)) : inner;
          break;
        }
        case 'image': {
          const href = d.safeHref(token.href.trim());
          const alt = d.escape(decodeEntities(token.text));
          out += href ? d.link(href, alt || d.escape(href)) : alt;
          break;
        }
        case 'html':
          out += d.escape(token.text);
          break;
        case 'checkbox':
          // Task markers are rendered by the list item (☐/☑).
          break;
        default: {
          const nested = (token as Tokens.Generic).tokens;
          out += nested ? this.inline(nested) : d.escape(String((token as Tokens.Generic).raw));
        }
      }
    }
    return out;
  }
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

/** A table as aligned columns of plain text. */
function tableText(table: Tokens.Table): string {
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
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line)].join('\n');
}
