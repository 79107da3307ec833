import { describe, expect, it } from 'vitest';
import { htmlToPlainText, telegramLength } from '../../src/telegram/plain-text.ts';
import { markdownToTelegramHtml } from '../../src/telegram/render-markdown.ts';

describe('markdownToTelegramHtml', () => {
  it('renders inline formatting, links and a list', () => {
    const markdown = [
      'Use **bold**, _italic_, ~~gone~~ and `a<b`, see [docs](https://example.com/a?x=1&y=2).',
      '',
      '- first **item**',
      '- second with `code`',
      '- [link](http://x.y)',
    ].join('\n');
    expect(markdownToTelegramHtml(markdown)).toBe(
      'Use <b>bold</b>, <i>italic</i>, <s>gone</s> and <code>a&lt;b</code>, see ' +
        '<a href="https://example.com/a?x=1&amp;y=2">docs</a>.\n\n' +
        '• first <b>item</b>\n' +
        '• second with <code>code</code>\n' +
        '• <a href="http://x.y">link</a>',
    );
  });

  it('renders fenced code with its language and escapes the content', () => {
    expect(markdownToTelegramHtml('```ts\nconst ok = a < b && c > d;\n```')).toBe(
      '<pre><code class="language-ts">const ok = a &lt; b &amp;&amp; c &gt; d;</code></pre>',
    );
    expect(markdownToTelegramHtml('```\nplain & simple\n```')).toBe(
      '<pre>plain &amp; simple</pre>',
    );
  });

  it('indents nested lists, keeps the ordered start number and marks tasks', () => {
    const markdown = '- a\n  - b\n    - c\n- d\n\n5. five\n6. six\n\n- [ ] todo\n- [x] done';
    expect(markdownToTelegramHtml(markdown)).toBe(
      '• a\n  • b\n    • c\n• d\n\n5. five\n6. six\n\n☐ todo\n☑ done',
    );
  });

  it('renders a table as an aligned <pre> block with markup stripped from cells', () => {
    const markdown = '| Name | Qty |\n|:-----|----:|\n| Apple | 3 |\n| **Kiwi** | 12 |';
    expect(markdownToTelegramHtml(markdown)).toBe(
      '<pre>Name  | Qty\n------+----\nApple |   3\nKiwi  |  12</pre>',
    );
  });

  it('leaves TeX as the model wrote it: Telegram cannot typeset math', () => {
    expect(markdownToTelegramHtml('So $E = mc^2$ and\n\n$$\nx^2\n$$')).toBe(
      'So $E = mc^2$ and\n\n$$\nx^2\n$$',
    );
  });

  it('renders headings as bold, with inline formatting inside', () => {
    expect(markdownToTelegramHtml('# Title with *em*\n\ntext')).toBe(
      '<b>Title with <i>em</i></b>\n\ntext',
    );
  });

  it('escapes raw HTML instead of passing it through', () => {
    expect(markdownToTelegramHtml('Hi <script>alert(1)</script> there\n\n<div>block</div>')).toBe(
      'Hi &lt;script&gt;alert(1)&lt;/script&gt; there\n\n&lt;div&gt;block&lt;/div&gt;',
    );
  });

  it('drops unsafe link targets to text and turns images and autolinks into links', () => {
    const markdown =
      '[click](javascript:alert(1)) and ![cat](https://img.example/cat.png) and <https://auto.link>';
    expect(markdownToTelegramHtml(markdown)).toBe(
      'click and <a href="https://img.example/cat.png">cat</a> and ' +
        '<a href="https://auto.link">https://auto.link</a>',
    );
  });

  it('renders quotes, rules, hard breaks and entities', () => {
    expect(markdownToTelegramHtml('> quoted **bold**\n> second line')).toBe(
      '<blockquote>quoted <b>bold</b>\nsecond line</blockquote>',
    );
    expect(markdownToTelegramHtml('a\n\n---\n\nb')).toBe('a\n\n———\n\nb');
    expect(markdownToTelegramHtml('one  \ntwo\\\nthree')).toBe('one\ntwo\nthree');
    expect(markdownToTelegramHtml('Tom &amp; Jerry & 1 < 2')).toBe(
      'Tom &amp; Jerry &amp; 1 &lt; 2',
    );
  });

  it('leaves no trailing whitespace', () => {
    expect(markdownToTelegramHtml('para one\n\n\n\npara two   \n\n\n')).toBe(
      'para one\n\npara two',
    );
    expect(markdownToTelegramHtml('')).toBe('');
  });
});

describe('htmlToPlainText', () => {
  it('strips tags and decodes entities', () => {
    expect(htmlToPlainText('<b>a &lt;b&gt;</b> &amp; <code>&quot;x&quot;</code>\n<i>y</i>')).toBe(
      'a <b> & "x"\ny',
    );
  });

  it('keeps link text and appends the target when it differs', () => {
    expect(
      htmlToPlainText(
        '<a href="https://e.com/?a=1&amp;b=2">docs</a> <a href="https://x.org">https://x.org</a>',
      ),
    ).toBe('docs (https://e.com/?a=1&b=2) https://x.org');
  });

  it('leaves no tags behind for rendered Markdown', () => {
    const html = markdownToTelegramHtml(
      '# H\n\n**b** _i_ `c` [l](https://l.ink)\n\n```js\nx < 1\n```\n\n> q\n\n| a | b |\n|---|---|\n| 1 | 2 |',
    );
    const plain = htmlToPlainText(html);
    expect(plain).not.toMatch(/<\/?[a-z]/i);
    expect(plain).toBe('H\n\nb i c l (https://l.ink)\n\nx < 1\n\nq\n\na | b\n--+--\n1 | 2');
  });

  it('measures in UTF-16 units', () => {
    expect(telegramLength('😀a')).toBe(3);
  });
});
