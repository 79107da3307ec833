// A single pass over HTML's tags, without building a DOM: how deep a page nests, and, for a
// page too deep to parse, its text. Linear in the page's length whatever its shape; plain
// JavaScript for the page reader's worker (see page-text.mjs).

/** Elements that never hold others. */
const VOID = new Set(
  'area base br col embed hr img input link meta param source track wbr'.split(' '),
);
/** Elements whose end tag may be left out (the next one closes them): not counted as depth. */
const OPTIONAL_END = new Set(
  'p li dt dd tr td th option optgroup thead tbody tfoot colgroup caption rb rt rp html head body'.split(
    ' ',
  ),
);
/** Elements whose content is text up to their end tag, never tags. */
const RAW = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'template']);
const BLOCKS = new Set(
  'address article blockquote div dl figcaption figure h1 h2 h3 h4 h5 h6 hr main ol p pre section table ul'.split(
    ' ',
  ),
);
const LINES = new Set(['li', 'tr', 'dt', 'dd', 'br']);
const SLASH = 47;
const BANG = 33;

/** A letter, or after the first character also a digit, `:` or `-`. */
function isNameChar(code, first) {
  const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return letter || (!first && ((code >= 48 && code <= 58) || code === 45));
}

/**
 * The tokens of `html`, one per `next()`: a run of text (`from`..`to`), a tag (`name`,
 * `closing`, `empty`), or a raw element's content (`name` and `from`..`to`: a script, a
 * title). Comments are skipped. Every step moves forward, so a pass is linear. One class
 * with plain fields, not callbacks: V8 optimizes its loop once and for all (a version with
 * callbacks sometimes fell into re-optimizing it over and over, 1,000 times slower).
 */
class Tokens {
  constructor(html) {
    this.html = html;
    this.lower = html.toLowerCase();
    this.at = 0;
    this.kind = 'text';
    this.from = 0;
    this.to = 0;
    this.name = '';
    this.closing = false;
    this.empty = false;
    this.rawEnd = -1;
  }

  /** Moves to the next token; false at the end. */
  next() {
    const { html, lower } = this;
    if (this.rawEnd !== -1) return this.raw();
    while (this.at < html.length) {
      const at = this.at;
      const lt = html.indexOf('<', at);
      if (lt === -1) return this.text(at, html.length, html.length);
      if (lt > at) return this.text(at, lt, lt);
      if (html.charCodeAt(lt + 1) === BANG) {
        const comment = html.startsWith('<!--', lt);
        const end = comment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt);
        this.at = end === -1 ? html.length : end + (comment ? 3 : 1);
        continue;
      }
      const closing = html.charCodeAt(lt + 1) === SLASH;
      const start = lt + (closing ? 2 : 1);
      let end = start;
      while (end < html.length && isNameChar(html.charCodeAt(end), end === start)) end++;
      if (end === start) return this.text(lt, lt + 1, lt + 1);
      const gt = html.indexOf('>', end);
      if (gt === -1) {
        this.at = html.length;
        return false;
      }
      this.kind = 'tag';
      this.name = lower.slice(start, end);
      this.closing = closing;
      this.empty = html.charCodeAt(gt - 1) === SLASH;
      this.at = gt + 1;
      if (!closing && RAW.has(this.name)) {
        const close = lower.indexOf(`</${this.name}`, this.at);
        this.rawEnd = close === -1 ? html.length : close;
      }
      return true;
    }
    return false;
  }

  text(from, to, at) {
    this.kind = 'text';
    this.from = from;
    this.to = to;
    this.at = at;
    return true;
  }

  raw() {
    this.kind = 'raw';
    this.from = this.at;
    this.to = this.rawEnd;
    this.at = this.rawEnd;
    this.rawEnd = -1;
    return true;
  }
}

/** Whether `html` nests elements more than `limit` deep (end tags that may be left out aside). */
export function nestsDeeperThan(html, limit) {
  const tokens = new Tokens(html);
  let depth = 0;
  while (tokens.next()) {
    if (tokens.kind !== 'tag' || tokens.empty) continue;
    if (VOID.has(tokens.name) || OPTIONAL_END.has(tokens.name)) continue;
    if (tokens.closing) depth = Math.max(0, depth - 1);
    else if (++depth > limit) return true;
  }
  return false;
}

/**
 * The title and text of `html` read without a DOM: scripts, styles and templates dropped,
 * blocks set apart by a blank line, list items marked with `-`, headings with `#`.
 */
export function scannedText(html) {
  const tokens = new Tokens(html);
  const out = [];
  let title = '';
  while (tokens.next()) {
    const { kind, name, closing } = tokens;
    if (kind === 'text') {
      out.push(decode(html.slice(tokens.from, tokens.to)).replace(/\s+/g, ' '));
    } else if (kind === 'raw') {
      const content = html.slice(tokens.from, tokens.to);
      if (name === 'title' && !title) title = decode(content).replace(/\s+/g, ' ').trim();
      else if (name === 'textarea') out.push(decode(content));
    } else {
      if (BLOCKS.has(name)) out.push('\n\n');
      else if (LINES.has(name) && !closing) out.push('\n');
      if (closing) continue;
      if (/^h[1-6]$/.test(name)) out.push(`${'#'.repeat(Number(name[1]))} `);
      if (name === 'li') out.push('- ');
    }
  }
  return { title, text: tidyText(out) };
}

/** Pieces of text as one: each line trimmed, at most one blank line in a row. */
export function tidyText(pieces) {
  return pieces
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code) => {
    if (code[0] !== '#') return NAMED[code.toLowerCase()] ?? whole;
    const point =
      code[1] === 'x' || code[1] === 'X'
        ? Number.parseInt(code.slice(2), 16)
        : Number(code.slice(1));
    return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
  });
}
