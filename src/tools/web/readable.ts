import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/**
 * A web page's title and main text. @mozilla/readability is Firefox Reader View's
 * extraction (scores the page's blocks, drops navigation, headers, footers, ads, scripts
 * and styles); it needs a DOM, and linkedom is a light one (no layout, no script execution,
 * a fraction of jsdom's size and start-up). Regexes over HTML cannot tell an article from
 * its menu; these two, both maintained, can.
 */
export function readableText(html: string): { title: string; text: string } {
  const { document } = parseHTML(html);
  const title = (document.title ?? '').trim();
  const article = new Readability(
    document as unknown as ConstructorParameters<typeof Readability>[0],
  ).parse();
  if (article?.content) {
    const text = blockText(parseHTML(`<html><body>${article.content}</body></html>`).document.body);
    if (text) return { title: (article.title ?? title).trim(), text };
  }
  // Not an article (a list, a form): the body without its scripts, styles and frame.
  const body = parseHTML(html).document.body;
  for (const el of body?.querySelectorAll(DROPPED) ?? []) el.remove();
  return { title, text: blockText(body) };
}

const DROPPED = 'script, style, noscript, template, svg, nav, header, footer, aside, form, iframe';
/** Blocks set apart by a blank line; LINES start a new line of their own. */
const BLOCKS = new Set(
  'address article blockquote div dl figcaption figure h1 h2 h3 h4 h5 h6 hr main ol p pre section table ul'.split(
    ' ',
  ),
);
const LINES = new Set(['li', 'tr', 'dt', 'dd', 'br']);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

/** Text with line breaks between blocks, headings marked with `#` and list items with `-`. */
function blockText(root: unknown): string {
  const out: string[] = [];
  const walk = (node: DomNode) => {
    if (node.nodeType === 3) {
      out.push((node.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== 1) return;
    const name = node.nodeName.toLowerCase();
    if (name === 'script' || name === 'style' || name === 'noscript') return;
    const block = BLOCKS.has(name);
    if (block) out.push('\n\n');
    else if (LINES.has(name)) out.push('\n');
    if (/^h[1-6]$/.test(name)) out.push(`${'#'.repeat(Number(name[1]))} `);
    if (name === 'li') out.push('- ');
    if (name === 'pre') {
      out.push(node.textContent ?? '', '\n');
      return;
    }
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) out.push('\n\n');
  };
  if (root) walk(root as DomNode);
  return out
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
