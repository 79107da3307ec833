// A web page's title and main text. Plain JavaScript that imports only JavaScript packages,
// so that a worker thread runs it under plain `node`, tsx and vitest alike, with no loader.
// page-reader.ts runs it in a worker, bounded in time and memory (STYLE habit 21).
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { nestsDeeperThan, scannedText, tidyText } from './html-scan.mjs';

/**
 * Past this depth (as the tags say, before parsing) the page gets no DOM: linkedom's parse
 * cost grows with the square of the depth (20,000 nested blocks took 0.5 s, 40,000 took
 * 5 s), so its text is read in one pass over the tags instead.
 */
export const MAX_PARSE_DEPTH = 1000;
/**
 * Past this depth (in the DOM) the page is not read as an article. Readability's scoring
 * walks each block's ancestors, so its cost grows with depth times size: 100 nested blocks
 * took 0.4 s, 1,000 took 15 s and 2,000 overflowed the stack. Real pages nest 15 to 60 deep.
 */
export const MAX_ARTICLE_DEPTH = 100;

/**
 * @mozilla/readability is Firefox Reader View's extraction (scores the page's blocks, drops
 * navigation, headers, footers, ads, scripts and styles); it needs a DOM, and linkedom is a
 * light one (no layout, no script execution, a fraction of jsdom's size and start-up).
 * Regexes over HTML cannot tell an article from its menu; these two, both maintained, can.
 * A page too deep for them gets the body's text (see the two limits above).
 *
 * @param {string} html
 * @returns {{ title: string, text: string }}
 */
export function readableText(html) {
  if (nestsDeeperThan(html, MAX_PARSE_DEPTH)) return scannedText(html);
  const { document } = parseHTML(html);
  const title = (document.title ?? '').trim();
  const deep = depthOver(document, MAX_ARTICLE_DEPTH);
  const article = deep ? null : articleOf(document);
  if (article?.content) {
    const text = blockText(parseHTML(`<html><body>${article.content}</body></html>`).document.body);
    if (text) return { title: (article.title ?? title).trim(), text };
  }
  // Not an article (a list, a form): the body without its scripts, styles and frame.
  // Readability changed the document it read, so that one is parsed again.
  return { title, text: bodyText(deep ? document : parseHTML(html).document) };
}

/**
 * Readability's reading, or null when it fails: on 100,000 links in one block it overflows
 * the stack (it spreads the block's children into one call), and the body text is better
 * than no text.
 */
function articleOf(document) {
  try {
    return new Readability(document).parse();
  } catch {
    return null;
  }
}

const DROPPED = 'script, style, noscript, template, svg, nav, header, footer, aside, form, iframe';

/** The body without its scripts, styles and frame, as block text. */
function bodyText(document) {
  const body = document.body;
  for (const el of body?.querySelectorAll(DROPPED) ?? []) el.remove();
  return blockText(body);
}

/** Whether any element lies more than `limit` elements deep; stops at the first that does. */
function depthOver(document, limit) {
  const stack = [[document.documentElement, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    if (!node) continue;
    if (depth > limit) return true;
    for (const child of node.children ?? []) stack.push([child, depth + 1]);
  }
  return false;
}

/** Blocks set apart by a blank line; LINES start a new line of their own. */
const BLOCKS = new Set(
  'address article blockquote div dl figcaption figure h1 h2 h3 h4 h5 h6 hr main ol p pre section table ul'.split(
    ' ',
  ),
);
const LINES = new Set(['li', 'tr', 'dt', 'dd', 'br']);
const CLOSE = Symbol('close');

/**
 * Text with line breaks between blocks, headings marked with `#` and list items with `-`.
 * A walk with a stack of its own, not recursion: a page may nest thousands deep.
 */
function blockText(root) {
  const out = [];
  const stack = root ? [root] : [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === CLOSE) {
      out.push('\n\n');
      continue;
    }
    if (node.nodeType === 3) {
      out.push((node.textContent ?? '').replace(/\s+/g, ' '));
      continue;
    }
    if (node.nodeType !== 1) continue;
    const name = node.nodeName.toLowerCase();
    if (name === 'script' || name === 'style' || name === 'noscript') continue;
    const block = BLOCKS.has(name);
    if (block) out.push('\n\n');
    else if (LINES.has(name)) out.push('\n');
    if (/^h[1-6]$/.test(name)) out.push(`${'#'.repeat(Number(name[1]))} `);
    if (name === 'li') out.push('- ');
    if (name === 'pre') {
      out.push(node.textContent ?? '', '\n');
      continue;
    }
    if (block) stack.push(CLOSE);
    const children = Array.from(node.childNodes);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return tidyText(out);
}
