// The chat's markup, rebuilt with DOM calls: the server sends a small, escaped HTML subset
// (src/web/markup.ts), and the page still trusts none of it. It is parsed into an inert
// document (no script runs, nothing loads), then only the allowed elements are made anew;
// any other element keeps only its words, and a link keeps only an http(s) or mailto target;
// a code block keeps its language, a cell its alignment and a formula its kind (rich.js
// labels, highlights and typesets them), each only when its value is one of the few allowed.
// Text keeps its newlines (the page shows them, as a chat does), but for one right after a
// quote or a code block, which would otherwise leave a wider gap there than between lines.

const TAGS = 'B STRONG I EM U S DEL CODE PRE BLOCKQUOTE A TABLE THEAD TBODY TR TH TD SPAN';
const ALLOWED = new Set(TAGS.split(' '));
const SCHEMES = new Set(['http:', 'https:', 'mailto:']);
/** The one attribute each tag may keep (besides a link's target), and its values. */
const ALIGN = /^(left|center|right)$/;
const ATTRIBUTES = {
  PRE: ['data-lang', /^[\w+#.-]{1,32}$/],
  TH: ['align', ALIGN],
  TD: ['align', ALIGN],
  SPAN: ['data-math', /^(inline|display)$/],
};

function safeHref(href) {
  try {
    return SCHEMES.has(new URL(href).protocol) ? href : undefined;
  } catch {
    return undefined;
  }
}

/** Elements that end their line themselves: a newline right after one adds a blank line. */
const BLOCKS = new Set(['PRE', 'BLOCKQUOTE', 'TABLE']);

function rebuild(source) {
  const out = document.createDocumentFragment();
  for (const node of source.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      const afterBlock = BLOCKS.has(node.previousSibling?.tagName);
      out.append(document.createTextNode(afterBlock ? node.data.replace(/^\n/, '') : node.data));
    } else if (node.nodeType !== Node.ELEMENT_NODE) continue;
    else if (!ALLOWED.has(node.tagName)) out.append(document.createTextNode(node.textContent));
    else {
      const element = document.createElement(node.tagName.toLowerCase());
      const [name, values] = ATTRIBUTES[node.tagName] ?? [];
      const value = name && node.getAttribute(name);
      if (value && values.test(value)) element.setAttribute(name, value);
      if (node.tagName === 'A') {
        const href = safeHref(node.getAttribute('href') ?? '');
        if (href) {
          element.href = href;
          element.target = '_blank';
          element.rel = 'noopener noreferrer';
        }
      }
      element.append(rebuild(node));
      out.append(element);
    }
  }
  return out;
}

/** The nodes that show `html`, built one by one. */
export function fromMarkup(html) {
  const inert = new DOMParser().parseFromString(html, 'text/html');
  return rebuild(inert.body);
}
