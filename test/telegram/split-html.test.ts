import { describe, expect, it } from 'vitest';
import { htmlToPlainText, telegramLength } from '../../src/telegram/plain-text.ts';
import { markdownToTelegramHtml } from '../../src/telegram/render-markdown.ts';
import { splitTelegramHtml } from '../../src/telegram/split-html.ts';

const ALLOWED = new Set(['b', 'i', 'u', 's', 'code', 'pre', 'a', 'blockquote', 'tg-spoiler']);

/** Throws unless every tag is an allowed one, properly nested and closed, with no stray `<`. */
function assertBalanced(html: string): void {
  const stack: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-z-]+)[^<>]*>/g)) {
    const [, closing, name = ''] = match;
    if (!ALLOWED.has(name)) throw new Error(`unexpected tag <${name}> in ${html.slice(0, 80)}`);
    if (!closing) stack.push(name);
    else if (stack.pop() !== name) throw new Error(`mismatched </${name}> in ${html.slice(0, 80)}`);
  }
  if (stack.length) throw new Error(`unclosed ${stack.join(',')} in ${html.slice(-80)}`);
  const text = html.replace(/<[^<>]*>/g, '');
  if (/[<>]/.test(text)) throw new Error('stray angle bracket');
  if (/&(?!(?:amp|lt|gt|quot|#\d+|#x[0-9a-f]+);)/i.test(text)) throw new Error('bare ampersand');
}

const visible = (html: string) => telegramLength(htmlToPlainText(html));
const squash = (text: string) => text.replace(/\s+/g, '');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Checks the whole contract for one split and returns the parts. */
function checkSplit(html: string, limit: number): string[] {
  const parts = splitTelegramHtml(html, limit);
  const original = htmlToPlainText(html);
  for (const part of parts) {
    expect(visible(part)).toBeLessThanOrEqual(limit);
    expect(part.trim()).not.toBe('');
    expect(htmlToPlainText(part).trim()).not.toBe('');
    assertBalanced(part);
    expect(htmlToPlainText(part)).not.toMatch(LONE_SURROGATE);
    expect(original).toContain(htmlToPlainText(part));
  }
  expect(squash(parts.map(htmlToPlainText).join(''))).toBe(squash(original));
  return parts;
}

/** A deterministic ~10,000-character answer with prose, a list and a 60-line code block. */
function longAnswer(): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota'];
  const sentence = (n: number) =>
    Array.from({ length: 14 }, (_, k) => words[(n * 7 + k) % words.length]).join(' ');
  const paragraph = (n: number) =>
    `**Step ${n}.** ${sentence(n)}, with \`code_${n}()\` and a [link](https://example.com/${n}). ${sentence(n + 1)}.`;
  const code = Array.from(
    { length: 60 },
    (_, k) => `  const value${k} = compute(${k}) < limit && ok; // line ${k} of the sample block`,
  );
  const sections = [
    '# Plan',
    ...Array.from({ length: 10 }, (_, n) => paragraph(n)),
    '- first point\n- second point with *emphasis*\n  - nested detail',
    '```ts',
    ...code,
    '```',
    ...Array.from({ length: 14 }, (_, n) => paragraph(n + 10)),
  ];
  let markdown = '';
  for (const section of sections) {
    markdown +=
      section + (section.startsWith('```') || section.startsWith('  const') ? '\n' : '\n\n');
  }
  return markdown.trim();
}

describe('splitTelegramHtml', () => {
  it('returns nothing for empty or blank input and one part when it fits', () => {
    expect(splitTelegramHtml('')).toEqual([]);
    expect(splitTelegramHtml('  \n\n ')).toEqual([]);
    expect(splitTelegramHtml('<b>hi</b> there')).toEqual(['<b>hi</b> there']);
  });

  it('splits a long rendered answer, closing and reopening the code block', () => {
    const markdown = longAnswer();
    expect(markdown.length).toBeGreaterThan(9_500);
    expect(markdown.length).toBeLessThan(11_000);
    const html = markdownToTelegramHtml(markdown);
    const parts = checkSplit(html, 4096);
    expect(parts.length).toBeGreaterThanOrEqual(3);

    const open = '<pre><code class="language-ts">';
    const withCode = parts.filter((part) => part.includes('const value'));
    expect(withCode.length).toBeGreaterThanOrEqual(2);
    for (const part of withCode) {
      expect(part.split(open).length - 1).toBe(1);
      expect(part).toContain('</code></pre>');
    }
    // The continuation starts inside the reopened block, at the start of a code line.
    const second = withCode[1]!;
    expect(second.startsWith(`${open}  const value`)).toBe(true);
    // The first half ends at a line boundary, right before the closing tags.
    expect(withCode[0]).toMatch(/of the sample block<\/code><\/pre>$/);
  });

  it('works with the caption limit of 1024', () => {
    const html = markdownToTelegramHtml(longAnswer());
    const parts = checkSplit(html, 1024);
    expect(parts.length).toBeGreaterThanOrEqual(10);
  });

  it('prefers paragraph boundaries, then lines, then spaces', () => {
    const para = (c: string) => Array.from({ length: 300 }, () => c.repeat(4)).join(' ');
    const [p1, p2, p3] = [para('a'), para('b'), para('c')];
    expect(splitTelegramHtml(`${p1}\n\n${p2}\n\n${p3}`, 4096)).toEqual([`${p1}\n\n${p2}`, p3]);

    const line = (c: string) => Array.from({ length: 30 }, () => c.repeat(4)).join(' ');
    const lines = Array.from({ length: 40 }, (_, k) => line(String.fromCharCode(97 + (k % 26))));
    const parts = checkSplit(lines.join('\n'), 1000);
    for (const part of parts) expect(lines).toContain(part.split('\n').at(-1));

    // A boundary right at the start is not worth a tiny part: fill this one line by line.
    const body = lines.join('\n');
    const [head] = checkSplit(`<b>Intro</b>\n\n${body}`, 1000);
    expect(head?.startsWith('<b>Intro</b>\n\n')).toBe(true);
    expect(visible(head!)).toBeGreaterThan(900);

    const words = Array.from({ length: 400 }, (_, k) => `w${k}`).join(' ');
    for (const part of checkSplit(words, 100)) expect(part).toMatch(/^w\d+( w\d+)*$/);
  });

  it('hard-cuts a single 10,000-character word', () => {
    const word = 'x'.repeat(10_000);
    const parts = checkSplit(word, 4096);
    expect(parts.map((part) => part.length)).toEqual([4096, 4096, 1808]);
    expect(parts.join('')).toBe(word);
    const bold = checkSplit(`<b>${word}</b>`, 4096);
    expect(bold.map(visible)).toEqual([4096, 4096, 1808]);
    for (const part of bold) expect(part).toMatch(/^<b>x+<\/b>$/);
  });

  it('counts emoji as two units and never splits a surrogate pair', () => {
    const emoji = ['😀', '🚀', '🎉', '👍', '🔥'];
    const dense = Array.from({ length: 3000 }, (_, k) => emoji[k % emoji.length]).join('');
    expect(telegramLength(dense)).toBe(6000);
    for (const limit of [4096, 1024, 101]) {
      const parts = checkSplit(dense, limit);
      expect(parts.join('')).toBe(dense);
    }
    const spaced = Array.from({ length: 2500 }, (_, k) => `${emoji[k % 5]}${emoji[(k + 1) % 5]}`);
    checkSplit(`<i>${spaced.join(' ')}</i>`, 4096);
    checkSplit(`a${dense}`, 1024);
  });

  it('never cuts an entity and reopens nested elements with their attributes', () => {
    const parts = checkSplit('&amp;'.repeat(50), 7);
    for (const part of parts) expect(part).toMatch(/^(&amp;)+$/);

    const html = `<blockquote><b>${'word '.repeat(60).trim()}</b></blockquote>`;
    for (const part of checkSplit(html, 50)) {
      expect(part).toMatch(/^<blockquote><b>[a-z ]+<\/b><\/blockquote>$/);
    }
    for (const part of checkSplit(`<tg-spoiler>${'secret '.repeat(30)}</tg-spoiler>`, 40)) {
      expect(part).toMatch(/^<tg-spoiler>[a-z ]+<\/tg-spoiler>$/);
    }
  });

  it('keeps a link whole by moving it to the next part', () => {
    const link = '<a href="https://example.com/docs">the documentation</a>';
    const before = 'y'.repeat(30);
    const parts = checkSplit(`${before} see ${link} now`, 50);
    expect(parts.some((part) => part.includes(link))).toBe(true);
  });

  it('is fast on large input', () => {
    const markdown = Array.from({ length: 12 }, () => longAnswer()).join('\n\n');
    const html = markdownToTelegramHtml(markdown);
    expect(html.length).toBeGreaterThan(100_000);
    const started = performance.now();
    const parts = splitTelegramHtml(html, 4096);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(parts.length).toBeGreaterThan(25);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => splitTelegramHtml('x', 0)).toThrow(RangeError);
  });
});
