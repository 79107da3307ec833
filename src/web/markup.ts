/**
 * The web chat's markup: a small, safe subset of HTML that the server writes and the page
 * rebuilds element by element (page/markup.js). No tag but these, at most one attribute and
 * only the one its tag may have (ATTRIBUTES: a link's `href` — http, https or mailto —, a
 * code block's language, a cell's alignment, a formula's kind), every `<`, `>` and `&` of
 * text escaped: a string that passes `markupProblem` cannot carry a script, an event handler
 * or a style.
 */
const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'del',
  'code',
  'pre',
  'blockquote',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'span',
]);

/** The one attribute a tag may have, and the values it may take. */
const ATTRIBUTES: Record<string, { name: string; value: (v: string) => boolean }> = {
  a: { name: 'href', value: (v) => safeHref(decodeEntities(v)) !== undefined },
  pre: { name: 'data-lang', value: (v) => /^[\w+#.-]{1,32}$/.test(v) },
  th: { name: 'align', value: (v) => /^(left|center|right)$/.test(v) },
  td: { name: 'align', value: (v) => /^(left|center|right)$/.test(v) },
  span: { name: 'data-math', value: (v) => v === 'inline' || v === 'display' },
};

/** Tags that must have their attribute (the others may go without). */
const NEEDS_ATTRIBUTE = new Set(['a', 'span']);

/** Link schemes the page opens; anything else loses its link and keeps its words. */
const SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** A tag (with at most one attribute), an entity, a stray markup character, or plain text. */
const TOKEN =
  /<(\/?)([a-z]+)(?: ([a-z-]+)="([^"<>]*)")?>|&(?:amp|lt|gt|quot|#\d{1,7}|#x[0-9a-fA-F]{1,6});|[<>&]|[^<>&]+/
    .source;

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** `href` when the page may link to it, else undefined. */
export function safeHref(href: string): string | undefined {
  try {
    return SCHEMES.has(new URL(href).protocol) ? href : undefined;
  } catch {
    return undefined;
  }
}

/** Why `html` is not the web chat's markup (undefined when it is). */
export function markupProblem(html: string): string | undefined {
  const open: string[] = [];
  const token = new RegExp(TOKEN, 'y');
  while (token.lastIndex < html.length) {
    const at = token.lastIndex;
    const match = token.exec(html);
    if (!match) return `unreadable markup at ${at}`;
    const [text, closing, tag, name, value] = match;
    if (text === '<' || text === '>' || text === '&') return `a bare "${text}" at ${at}`;
    if (tag === undefined) continue;
    if (!TAGS.has(tag)) return `the tag <${tag}> is not allowed`;
    if (closing) {
      if (name !== undefined) return `a closing </${tag}> with an attribute`;
      if (open.pop() !== tag) return `</${tag}> closes nothing open`;
      continue;
    }
    const allowed = ATTRIBUTES[tag];
    if (name === undefined ? NEEDS_ATTRIBUTE.has(tag) : name !== allowed?.name)
      return `<${tag}> with the wrong attributes`;
    if (value !== undefined && !allowed!.value(value))
      return tag === 'a' ? 'a link that is not allowed' : `<${tag}> with a value not allowed`;
    open.push(tag);
  }
  return open.length > 0 ? `<${open.at(-1)}> is not closed` : undefined;
}

/**
 * What the page shows of the markup: its words, tags out, entities decoded (a table's cells
 * apart, by " | " and a line a row).
 */
export function visibleText(html: string): string {
  const cells = html
    .replace(/<\/t[hd]>(?=<t[hd][ >])/g, ' | ')
    .replace(/<\/tr>(?=(?:<\/thead><tbody>)?<tr>)/g, '\n');
  return decodeEntities(cells.replace(/<[^>]*>/g, ''));
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (entity, body: string) => {
    if (!body.startsWith('#')) return NAMED[body] ?? entity;
    const code = body[1] === 'x' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : entity;
  });
}
