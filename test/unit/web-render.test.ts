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
    expect(render('```js\nif (a && b) {}\n```')).toEqual(['<pre>if (a &amp;&amp; b) {}</pre>']);
    expect(render('[docs](https://example.com/?a=1&b="2")')).toEqual([
      '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">docs</a>',
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
  ])('shows %j as text: only its own markup reaches the page', (hostile) => {
    for (const format of ['markdown', 'plain'] as const) {
      const [html] = render(hostile, format);
      expect(markupProblem(html!)).toBeUndefined();
      // Every tag is one of the few, with no attribute but a web or mail link's target.
      for (const tag of html!.match(/<[^>]*>/g) ?? [])
        expect(tag).toMatch(
          /^<\/?(b|i|s|code|pre|blockquote|a)>$|^<a href="(https?|mailto):[^"]*">$/,
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
