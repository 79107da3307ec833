/**
 * Plain-text view of Telegram HTML: the fallback body sent when Telegram rejects the markup,
 * and the measure the splitter uses for a part's visible length.
 */

import { decodeEntities, decodeEntity } from '../outbound/html-entities.ts';

/** Matches one tag, one character reference, or a run of other text. */
const HTML_PIECE =
  /<\/?[a-zA-Z][^<>]*>|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);|[^<&]+|[<&]/g;

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
