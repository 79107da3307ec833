/**
 * Plain-text view of Telegram HTML: the fallback body sent when Telegram rejects the markup,
 * and the measure the splitter uses for a part's visible length.
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Matches one tag, one character reference, or a run of other text. */
const HTML_PIECE =
  /<\/?[a-zA-Z][^<>]*>|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);|[^<&]+|[<&]/g;

/** Decodes one character reference (`&amp;`, `&#128512;`, `&#x1F600;`); unknown ones stay as is. */
export function decodeEntity(entity: string): string {
  const body = entity.slice(1, -1);
  if (body.startsWith('#')) {
    const hex = body[1] === 'x' || body[1] === 'X';
    const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
    if (code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
      return String.fromCodePoint(code);
    }
    return entity;
  }
  return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
}

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/g, decodeEntity);
}

export interface ParsedTag {
  name: string;
  closing: boolean;
  /** Decoded `href` of an `<a>` tag. */
  href?: string;
}

export function parseTag(tag: string): ParsedTag {
  const closing = tag.startsWith('</');
  const name = /^<\/?([a-zA-Z][\w-]*)/.exec(tag)?.[1]?.toLowerCase() ?? '';
  const parsed: ParsedTag = { name, closing };
  if (!closing && name === 'a') {
    const match = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    parsed.href = decodeEntities(match?.[1] ?? match?.[2] ?? '');
  }
  return parsed;
}

/** Length as Telegram counts it: UTF-16 code units (an emoji outside the BMP counts 2). */
export function telegramLength(text: string): number {
  return text.length;
}

/**
 * The visible text of Telegram HTML: tags dropped, entities decoded, newlines kept. A link
 * whose text differs from its target gains ` (href)` so the target survives without markup.
 */
export function htmlToPlainText(html: string): string {
  let out = '';
  const links: Array<{ href: string; start: number }> = [];
  for (const match of html.matchAll(HTML_PIECE)) {
    const piece = match[0];
    if (piece.length > 1 && piece.startsWith('<')) {
      const tag = parseTag(piece);
      if (tag.name !== 'a') continue;
      if (!tag.closing) {
        links.push({ href: tag.href ?? '', start: out.length });
        continue;
      }
      const link = links.pop();
      if (link?.href && out.slice(link.start) !== link.href) out += ` (${link.href})`;
    } else if (piece.length > 1 && piece.startsWith('&')) {
      out += decodeEntity(piece);
    } else {
      out += piece;
    }
  }
  return out;
}
