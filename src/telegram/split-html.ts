import { decodeEntity } from '../outbound/html-entities.ts';
import { parseTag } from './plain-text.ts';

/**
 * Splits Telegram HTML into parts whose visible length (UTF-16 units of `htmlToPlainText`,
 * which is also what the plain-text fallback sends) fits `limit`. Breaks prefer a paragraph
 * boundary, then a line, then a space, then a hard cut between characters (never inside a
 * tag, an entity or a surrogate pair). Elements open at a break are closed at the end of the
 * part and reopened, same attributes, at the start of the next.
 *
 * One pass over the input builds items (a tag, an entity, a whitespace character or a run of
 * other text); each part is then scanned greedily from where the previous one ended, so the
 * work is linear in the input plus at most one limit's worth of rescanning per part.
 */
export function splitTelegramHtml(html: string, limit = 4096): string[] {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`splitTelegramHtml: limit must be a positive integer, got ${limit}`);
  }
  const items = tokenize(html);
  const parts: string[] = [];
  let from: Cut = { index: 0, offset: 0, stack: null, at: 0 };
  while (from.index < items.length) {
    const to = scanPart(items, from, limit);
    const part = emitPart(items, from, to);
    if (part) parts.push(part);
    from = to;
  }
  return parts;
}

/** Whitespace kinds, ordered by how good a break they make. */
const NOT_SPACE = 0;
const SPACE = 1;
const LINE = 2;
const PARAGRAPH = 3;
type SpaceKind = typeof NOT_SPACE | typeof SPACE | typeof LINE | typeof PARAGRAPH;
const BREAK_PRIORITY = [PARAGRAPH, LINE, SPACE] as const;

/** An `<a>` element: the plain-text view appends ` (href)` when its text ≠ href. */
interface LinkInfo {
  /** Cost of the ` (href)` suffix. */
  suffix: number;
  /** Visible cost of the whole link when it stays in one part. */
  whole: number;
  /** Index of the closing item (items.length if never closed). */
  close: number;
  /** Set when the link is too long to split with its suffix: its tags are dropped. */
  dropped: boolean;
}

interface TextItem {
  kind: 'text';
  html: string;
  /** Visible length in UTF-16 units. */
  len: number;
  space: SpaceKind;
  /** A run of plain characters (html === visible text) that a hard cut may divide. */
  run: boolean;
}
interface OpenItem {
  kind: 'open';
  html: string;
  name: string;
  link?: LinkInfo;
}
interface CloseItem {
  kind: 'close';
  html: string;
  name: string;
  link?: LinkInfo;
}
type Item = TextItem | OpenItem | CloseItem;

/** Open elements as a persistent list, so a snapshot at a break point costs nothing. */
type Stack = { item: OpenItem; parent: Stack } | null;

/** A position between two characters: item `index`, `offset` code units into it. */
interface Cut {
  index: number;
  offset: number;
  /** Elements open at this position. */
  stack: Stack;
  /** Visible length of the part before this position. */
  at: number;
}

const TAG = /<\/?[a-zA-Z][^<>]*>/y;
const ENTITY = /&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/y;
const VOID_TAGS = new Set(['br', 'hr', 'img', 'wbr']);

function isRunBreak(code: number): boolean {
  // < & \n space \t \r
  return code === 60 || code === 38 || code === 10 || code === 32 || code === 9 || code === 13;
}

function tokenize(html: string): Item[] {
  const items: Item[] = [];
  let lastText: TextItem | undefined;
  let link: { info: LinkInfo; text: string; href: string } | undefined;

  const finishLink = (close: number) => {
    if (!link) return;
    const { info, text, href } = link;
    info.close = close;
    info.whole = text.length + (href && text !== href ? info.suffix : 0);
    link = undefined;
  };
  const pushText = (piece: string, text: string, space: SpaceKind, run: boolean) => {
    const item: TextItem = { kind: 'text', html: piece, len: text.length, space, run };
    if (space === LINE && lastText?.html === '\n') {
      lastText.space = PARAGRAPH;
      item.space = PARAGRAPH;
    }
    if (link) link.text += text;
    items.push(item);
    lastText = item;
  };

  let pos = 0;
  while (pos < html.length) {
    const code = html.charCodeAt(pos);
    if (code === 60) {
      TAG.lastIndex = pos;
      const match = TAG.exec(html);
      if (match) {
        pos = TAG.lastIndex;
        pushTag(match[0]);
        continue;
      }
    } else if (code === 38) {
      ENTITY.lastIndex = pos;
      const match = ENTITY.exec(html);
      if (match) {
        pos = ENTITY.lastIndex;
        pushText(match[0], decodeEntity(match[0]), NOT_SPACE, false);
        continue;
      }
    } else if (code === 10) {
      pos++;
      pushText('\n', '\n', LINE, false);
      continue;
    } else if (code === 32 || code === 9 || code === 13) {
      const ch = html[pos++]!;
      pushText(ch, ch, SPACE, false);
      continue;
    }
    // A run of ordinary characters (a stray `<` or `&` starts one of its own).
    let end = pos + 1;
    while (end < html.length && !isRunBreak(html.charCodeAt(end))) end++;
    const run = html.slice(pos, end);
    pos = end;
    pushText(run, run, NOT_SPACE, true);
  }
  finishLink(items.length);
  return items;

  function pushTag(piece: string) {
    const tag = parseTag(piece);
    if (!tag.closing && (VOID_TAGS.has(tag.name) || piece.endsWith('/>'))) {
      items.push({ kind: 'text', html: piece, len: 0, space: NOT_SPACE, run: false });
    } else if (tag.closing) {
      const item: CloseItem = { kind: 'close', html: piece, name: tag.name };
      if (tag.name === 'a' && link) {
        item.link = link.info;
        finishLink(items.length);
      }
      items.push(item);
    } else {
      const item: OpenItem = { kind: 'open', html: piece, name: tag.name };
      if (tag.name === 'a' && !link) {
        const href = tag.href ?? '';
        const suffix = href ? href.length + 3 : 0;
        item.link = { suffix, whole: suffix, close: -1, dropped: false };
        link = { info: item.link, text: '', href };
      }
      items.push(item);
    }
  }
}

/** Pops the element `name` closes (and any left open inside it); a stray close is ignored. */
function popFor(stack: Stack, name: string): { stack: Stack; popped: OpenItem[] } {
  const popped: OpenItem[] = [];
  for (let s = stack; s; s = s.parent) {
    popped.push(s.item);
    if (s.item.name === name) return { stack: s.parent, popped };
  }
  return { stack, popped: [] };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Greedily finds where the part starting at `from` must end. */
function scanPart(items: Item[], from: Cut, limit: number): Cut {
  let visible = 0;
  /** ` (href)` suffixes owed by links still open: paid when the part closes them. */
  let pending = 0;
  for (let s = from.stack; s; s = s.parent) {
    if (s.item.link && !s.item.link.dropped) pending += s.item.link.suffix;
  }
  let hasContent = false;
  const best: Array<Cut | undefined> = [undefined, undefined, undefined, undefined];
  let stack = from.stack;

  /** The best recorded break: the highest kind past a quarter of the limit, else any. */
  const recordedBreak = (): Cut | undefined => {
    for (const kind of BREAK_PRIORITY) {
      const cut = best[kind];
      if (cut && cut.at * 4 >= limit) return cut;
    }
    for (const kind of BREAK_PRIORITY) {
      const cut = best[kind];
      if (cut) return cut;
    }
    return undefined;
  };

  let i = from.index;
  let offset = from.offset;
  while (i < items.length) {
    const item = items[i]!;
    if (item.kind === 'text') {
      const len = item.len - offset;
      if (visible + len + pending > limit) {
        const recorded = hasContent ? recordedBreak() : undefined;
        if (recorded) return recorded;
        if (item.run) {
          // Hard cut inside the run, never between the halves of a surrogate pair.
          let take = Math.min(limit - visible - pending, len);
          if (take > 0 && isHighSurrogate(item.html.charCodeAt(offset + take - 1))) take--;
          if (take <= 0 && !hasContent)
            take = isHighSurrogate(item.html.charCodeAt(offset)) ? 2 : 1;
          if (take >= len) return { index: i + 1, offset: 0, stack, at: visible + len };
          if (take > 0) return { index: i, offset: offset + take, stack, at: visible + take };
        }
        if (hasContent) return { index: i, offset, stack, at: visible };
        // Not even one unit fits beside what this part must carry: take it anyway.
        return { index: i + 1, offset: 0, stack, at: visible + len };
      }
      if (item.space !== NOT_SPACE && hasContent) {
        best[item.space] = { index: i, offset: 0, stack, at: visible };
      }
      // Leading whitespace up to the last newline is dropped when the part is written.
      visible = !hasContent && item.html === '\n' ? 0 : visible + len;
      if (item.space === NOT_SPACE) hasContent = true;
      offset = 0;
      i++;
    } else if (item.kind === 'open') {
      const link = item.link;
      if (link?.dropped) {
        i++;
        continue;
      }
      if (link) {
        if (visible + pending + link.whole <= limit) {
          // The whole link fits: take it as one unit.
          visible += link.whole;
          if (link.whole > 0) hasContent = true;
          i = Math.max(i + 1, link.close + 1);
          continue;
        }
        if (hasContent && link.whole <= limit) {
          // It fits a part of its own: break before it rather than inside it.
          return recordedBreak() ?? { index: i, offset: 0, stack, at: visible };
        }
        if (link.suffix * 2 > limit) {
          link.dropped = true;
          i++;
          continue;
        }
        pending += link.suffix;
      }
      stack = { item, parent: stack };
      i++;
    } else {
      if (!item.link?.dropped) {
        const { stack: rest, popped } = popFor(stack, item.name);
        for (const open of popped) {
          if (open.link && !open.link.dropped) {
            pending -= open.link.suffix;
            visible += open.link.suffix;
          }
        }
        stack = rest;
      }
      i++;
    }
  }
  return { index: items.length, offset: 0, stack, at: visible };
}

/**
 * Writes the part between two cuts: reopens the elements open at `from`, drops whitespace at
 * both ends (keeping indentation after the last leading newline), opens elements lazily so
 * none is left empty, and closes whatever is still open at the end.
 */
function emitPart(items: Item[], from: Cut, to: Cut): string {
  const lastItem = to.offset > 0 ? to.index : to.index - 1;
  const piece = (j: number, item: Item): string => {
    const start = j === from.index ? from.offset : 0;
    const end = j === to.index ? to.offset : item.html.length;
    return start === 0 && end === item.html.length ? item.html : item.html.slice(start, end);
  };
  const isContent = (item: Item) => item.kind === 'text' && item.space === NOT_SPACE;

  let last = -1;
  for (let j = lastItem; j >= from.index; j--) {
    if (isContent(items[j]!)) {
      last = j;
      break;
    }
  }
  if (last < 0) return '';
  let first = from.index;
  let leadingNewline = -1;
  for (; first <= last && !isContent(items[first]!); first++) {
    if (items[first]!.html === '\n') leadingNewline = first;
  }

  const open: OpenItem[] = [];
  for (let s = from.stack; s; s = s.parent) open.unshift(s.item);
  let written = 0;
  let out = '';
  for (let j = from.index; j <= lastItem; j++) {
    const item = items[j]!;
    if (item.kind === 'text') {
      if (item.space !== NOT_SPACE) {
        if (j > last) continue;
        if (j < first && (leadingNewline < 0 || j <= leadingNewline)) continue;
      }
      for (; written < open.length; written++) out += open[written]!.html;
      out += piece(j, item);
    } else if (item.link?.dropped) {
      // A link too long to split beside its suffix: only its text is kept.
    } else if (item.kind === 'open') {
      open.push(item);
    } else {
      const at = open.findLastIndex((o) => o.name === item.name);
      if (at < 0) continue;
      for (let k = Math.min(open.length, written) - 1; k >= at; k--) out += `</${open[k]!.name}>`;
      open.length = at;
      written = Math.min(written, at);
    }
  }
  for (let k = written - 1; k >= 0; k--) out += `</${open[k]!.name}>`;
  return out;
}
