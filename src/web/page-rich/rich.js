// What the page adds to the server's markup once a message has code or math (chat.js loads
// this module only then, so a page without either never fetches it): a code block that names
// its language gets it as a label, syntax highlighting (highlight.js, the languages below) and
// a "Copy" button (a block that names none, such as an approval's arguments, stays as it is); a formula (`data-math`) is typeset as MathML (Temml, no fonts to fetch). Both run
// in the page, on text that markup.js rebuilt: highlight.js's output is rebuilt too, keeping
// only its spans and their `hljs-…` classes. scripts/build-page.ts bundles this file into
// src/web/page/rich.js; the page loads nothing from outside.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import temml from 'temml';

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  plaintext,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** highlight.js's HTML as DOM nodes: its text, and spans with only their `hljs-…` classes. */
function rebuildHighlight(source) {
  const out = document.createDocumentFragment();
  for (const node of source.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) out.append(document.createTextNode(node.data));
    else if (node.tagName === 'SPAN') {
      const span = document.createElement('span');
      const classes = (node.getAttribute('class') ?? '').split(/\s+/);
      span.className = classes.filter((c) => /^[\w-]+$/.test(c)).join(' ');
      span.append(rebuildHighlight(node));
      out.append(span);
    } else out.append(document.createTextNode(node.textContent));
  }
  return out;
}

function highlighted(text, language) {
  const { value } = hljs.highlight(text, { language, ignoreIllegals: true });
  return rebuildHighlight(new DOMParser().parseFromString(value, 'text/html').body);
}

/** Copies `text`; true when it was copied. A page outside a secure context selects it instead. */
async function copyText(text, pre) {
  if (navigator.clipboard) {
    await navigator.clipboard.writeText(text);
    return true;
  }
  const range = document.createRange();
  range.selectNodeContents(pre);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
  return document.execCommand('copy');
}

function copyButton(pre, label) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', `Copy the ${label} code`);
  let timer;
  button.addEventListener('click', async () => {
    let copied = false;
    try {
      copied = await copyText(pre.textContent, pre);
    } catch {
      copied = false;
    }
    button.textContent = copied ? 'Copied' : 'Not copied';
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = 'Copy';
    }, 2000);
  });
  return button;
}

/** A code block with a head (its language, a Copy button) and its code highlighted. */
function codeBlock(pre) {
  const lang = pre.dataset.lang;
  const known = hljs.getLanguage(lang) ? lang : undefined;
  const code = document.createElement('code');
  code.className = known ? `hljs language-${known}` : 'hljs';
  code.append(known ? highlighted(pre.textContent, known) : pre.textContent);
  pre.replaceChildren(code);
  const block = document.createElement('div');
  block.className = 'code-block';
  const head = document.createElement('div');
  head.className = 'code-head';
  const name = document.createElement('span');
  name.className = 'lang';
  name.textContent = lang;
  head.append(name, copyButton(pre, lang));
  pre.replaceWith(block);
  block.append(head, pre);
}

/** A formula typeset in place; TeX that Temml cannot read stays as it was written. */
function formula(span) {
  const tex = span.textContent;
  try {
    temml.render(tex, span, {
      displayMode: span.dataset.math === 'display',
      throwOnError: true,
      trust: false,
    });
    span.setAttribute('title', tex);
  } catch {
    span.textContent = tex;
    span.classList.add('math-error');
  }
}

/** Labels, highlights and typesets what `root` shows (once each: done ones are marked). */
export function enrich(root) {
  for (const pre of root.querySelectorAll('pre[data-lang]:not(.rich)')) {
    pre.classList.add('rich');
    codeBlock(pre);
  }
  for (const span of root.querySelectorAll('span[data-math]:not(.rich)')) {
    span.classList.add('rich');
    formula(span);
  }
}
