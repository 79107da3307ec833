import { describe, expect, it } from 'vitest';
import { markupProblem, visibleText } from '../../src/web/markup.ts';
import { webRenderer } from '../../src/web/render.ts';

const render = (text: string, format: 'markdown' | 'plain' = 'markdown') =>
  webRenderer.text({ text, format }).map((p) => p.text);

describe("the web chat's markup", () => {
  it('renders Markdown with its own few tags, and keeps line breaks as newlines', () => {
    expect(render('**bold** _it_ ~~gone~~ `x < y`')).toEqual([
      '<b>bold</b> <i>it</i> <s>gone</s> <code>x &lt; y</code>',
    ]);
    expect(render('> quoted\n\n- one\n- two')).toEqual([
      '<blockquote>quoted</blockquote>\n\n• one\n• two',
    ]);
    expect(render('```js\nif (a && b) {}\n```')).toEqual([
      '<pre data-lang="js">if (a &amp;&amp; b) {}</pre>',
    ]);
    expect(render('```\nplain\n```')).toEqual(['<pre>plain</pre>']);
    expect(render('[docs](https://example.com/?a=1&b="2")')).toEqual([
      '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">docs</a>',
    ]);
  });

  it('makes tables real tables, with their alignment and the marks in their cells', () => {
    const [html] = render('| Name | Age |\n|:--|--:|\n| **Bob** | 3 |\n| Al | 40 |');
    expect(html).toBe(
      '<table><thead><tr><th align="left">Name</th><th align="right">Age</th></tr></thead>' +
        '<tbody><tr><td align="left"><b>Bob</b></td><td align="right">3</td></tr>' +
        '<tr><td align="left">Al</td><td align="right">40</td></tr></tbody></table>',
    );
    expect(markupProblem(html!)).toBeUndefined();
    expect(visibleText(html!)).toBe('Name | Age\nBob | 3\nAl | 40');
  });

  it('marks math for the page to typeset, and leaves prices and code alone', () => {
    expect(render('Energy: $E = mc^2$, costs $5 and $10.')).toEqual([
      'Energy: <span data-math="inline">E = mc^2</span>, costs $5 and $10.',
    ]);
    expect(render('$$\n\\frac{a<b}{2}\n$$')).toEqual([
      '<span data-math="display">\\frac{a&lt;b}{2}</span>',
    ]);
    expect(render('so $$x^2$$ here')).toEqual(['so <span data-math="display">x^2</span> here']);
    expect(render('`$a$` and \\$b\\$')).toEqual(['<code>$a$</code> and $b$']);
    expect(render('```sh\necho $HOME $PATH\n```')).toEqual([
      '<pre data-lang="sh">echo $HOME $PATH</pre>',
    ]);
    // No space inside either end, and not glued to a word before it.
    expect(render('$ x $ and a$b$ and $x$y')).toEqual(['$ x $ and a$b$ and $x$y']);
    expect(render('- area: $\\pi r^2$\n- | a | $b$')).toEqual([
      '• area: <span data-math="inline">\\pi r^2</span>\n• | a | <span data-math="inline">b</span>',
    ]);
  });

  it.each([
    '<script>alert(1)</script>',
    '<img src=x onerror="alert(1)">',
    '[click](javascript:alert(1))',
    '![x](data:text/html,<script>alert(1)</script>)',
    '<a href="https://ok.example" onclick="alert(1)">x</a>',
    '"><svg onload=alert(1)>',
    '`</code><script>`',
    '[x](https://e.com/"onmouseover="alert(1))',
    '```js" onclick="alert(1)\nx\n```',
    '$<script>alert(1)</script>$',
    '| <b onclick="x">h</b> |\n|---|\n| [a](javascript:x) |',
  ])('shows %j as text: only its own markup reaches the page', (hostile) => {
    for (const format of ['markdown', 'plain'] as const) {
      const [html] = render(hostile, format);
      expect(markupProblem(html!)).toBeUndefined();
      // Every tag is one of the few, with no attribute but a web or mail link's target.
      for (const tag of html!.match(/<[^>]*>/g) ?? [])
        expect(tag).toMatch(
          /^<\/?(b|i|s|code|pre|blockquote|a|table|thead|tbody|tr|th|td|span)>$|^<a href="(https?|mailto):[^"]*">$|^<pre data-lang="[\w+#.-]+">$|^<span data-math="(inline|display)">$/,
        );
    }
  });

  it('refuses anything but its own tags, plain links and escaped text', () => {
    for (const bad of [
      '<script>x</script>',
      '<b onclick="x">a</b>',
      '<a href="javascript:alert(1)">a</a>',
      '<a>a</a>',
      '<b>open',
      'a </i> b',
      'bare & ampersand',
      'a < b',
      '<B>upper</B>',
      '<pre data-lang="a b">x</pre>',
      '<pre class="x">x</pre>',
      '<span>x</span>',
      '<span data-math="script">x</span>',
      '<td align="justify">x</td>',
      '<td style="color:red">x</td>',
    ])
      expect(markupProblem(bad), bad).toBeDefined();
    expect(
      markupProblem('<b>a</b> &amp; <a href="mailto:x@y.z">mail</a> &#128512;'),
    ).toBeUndefined();
    expect(visibleText('<b>a</b> &amp; &lt;b&gt; &#128512;')).toBe('a & <b> 😀');
  });

  it('leaves out a message with nothing to show, and puts the keyboard on the last part', () => {
    expect(render('   ')).toEqual([]);
    expect(render('\u200b', 'plain')).toEqual([]);
    const keyboard = [[{ text: 'Yes', data: 'say:yes' }]];
    expect(webRenderer.text({ text: 'Sure?', format: 'plain', keyboard })).toEqual([
      { text: 'Sure?', plain: 'Sure?', keyboard },
    ]);
  });
});
