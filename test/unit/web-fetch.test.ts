import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { resultText } from '../../src/tools/tool.ts';
import { type Resolve, WEB_LIMITS } from '../../src/tools/web/guarded-get.ts';
import { createWebFetchTool, type WebFetchDeps } from '../../src/tools/web-fetch.ts';
import { FakeWeb, reply } from '../fakes/web-server.ts';
import { FakeClock } from '../support/fake-clock.ts';

const ARTICLE = `<!doctype html><html><head><title>Apples</title>
<style>body { color: red }</style><script>window.tracker = 'SCRIPT-TEXT'</script></head>
<body><nav><a href="/">Home</a> <a href="/menu">MENU-LINK</a></nav>
<header>SITE-HEADER</header>
<article><h1>Apples</h1><p>The apple is the fruit of the apple tree. ${'Apples grow in orchards and are eaten fresh. '.repeat(12)}</p>
<ul><li>Red</li><li>Green</li></ul><p>A second paragraph about cider.</p></article>
<footer>FOOTER-TEXT</footer><script>track('SCRIPT-TWO')</script></body></html>`;

const webs: FakeWeb[] = [];
afterEach(async () => {
  for (const w of webs.splice(0)) await w.stop();
});
async function serve(handler: Parameters<typeof FakeWeb.start>[0]) {
  const web = await FakeWeb.start(handler);
  webs.push(web);
  return web;
}

/** The tool as a turn gets it; names resolve only through `names` (never real DNS). */
function tool(options: Partial<WebFetchDeps> & { names?: Record<string, string[]> } = {}) {
  const lookups: string[] = [];
  const resolve: Resolve = async (host) => {
    lookups.push(host);
    const found = options.names?.[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
  const deps: WebFetchDeps = {
    allowHosts: [],
    maxChars: 20_000,
    resolve,
    limits: WEB_LIMITS,
    clock: systemClock,
    ...options,
  };
  const fetchTool = createWebFetchTool(deps);
  return {
    lookups,
    fetch: (url: string, signal = new AbortController().signal) =>
      fetchTool.run({ url }, signal).then(
        (output) => ({ ok: true as const, text: resultText(output) }),
        (error: Error) => ({ ok: false as const, text: error.message }),
      ),
  };
}

describe('web_fetch on an allow-listed local page', () => {
  it('gives the title and main text, without scripts, styles, navigation or footer', async () => {
    const web = await serve((_req, res) => reply(res, 'text/html; charset=utf-8', ARTICLE));
    const result = await tool({ allowHosts: [`127.0.0.1:${web.port}`] }).fetch(`${web.url}/apples`);
    expect(result.ok).toBe(true);
    expect(result.text).toMatch(/^Title: Apples\nURL: http:\/\/127\.0\.0\.1:\d+\/apples\n\n/);
    expect(result.text).toContain('The apple is the fruit of the apple tree.');
    expect(result.text).toContain('- Red\n- Green');
    expect(result.text).toContain('A second paragraph about cider.');
    for (const noise of [
      'SCRIPT-TEXT',
      'SCRIPT-TWO',
      'MENU-LINK',
      'SITE-HEADER',
      'FOOTER-TEXT',
      'color: red',
    ])
      expect(result.text).not.toContain(noise);
  });

  it('gives plain text, Markdown and JSON as they are, and cuts at WEB_FETCH_MAX_CHARS with a note', async () => {
    const web = await serve((req, res) => {
      if (req.path === '/a.md') reply(res, 'text/markdown', '# Notes\n\n- one <b>two</b>');
      else if (req.path === '/a.json') reply(res, 'application/json', '{"a": [1, 2]}');
      else reply(res, 'text/plain', 'x'.repeat(500));
    });
    const t = tool({ allowHosts: [`127.0.0.1:${web.port}`], maxChars: 100 });
    expect((await t.fetch(`${web.url}/a.md`)).text).toBe(
      `URL: ${web.url}/a.md\n\n# Notes\n\n- one <b>two</b>`,
    );
    expect((await t.fetch(`${web.url}/a.json`)).text).toContain('{"a": [1, 2]}');
    const long = await t.fetch(`${web.url}/long.txt`);
    expect(long.text.startsWith(`URL: ${web.url}/long.txt\n\nxxx`)).toBe(true);
    expect(long.text).toMatch(/\[Cut: the page has \d+ characters; the first 100 are shown\.\]$/);
  });

  it('connects to the address it checked: one lookup per hop, no second resolution', async () => {
    const web = await serve((_req, res) => reply(res, 'text/plain', 'hello'));
    // `wiki.test` exists only in the injected resolver: reaching the page proves the
    // connection went to the checked address, not through the system's DNS.
    const t = tool({
      allowHosts: [`wiki.test:${web.port}`],
      names: { 'wiki.test': ['127.0.0.1'] },
    });
    const result = await t.fetch(`http://wiki.test:${web.port}/page`);
    expect(result).toEqual({ ok: true, text: `URL: http://wiki.test:${web.port}/page\n\nhello` });
    expect(t.lookups).toEqual(['wiki.test']);
    expect(web.requests[0]?.headers.host).toBe(`wiki.test:${web.port}`);
  });
});

describe('web_fetch hostile suite: no request reaches a private listener', () => {
  it.each([
    (port: number) => `http://127.0.0.1:${port}/`,
    (port: number) => `http://2130706433:${port}/`,
    (port: number) => `http://0177.0.0.1:${port}/`,
    (port: number) => `http://0x7f.1:${port}/`,
    (port: number) => `http://127.1:${port}/`,
    (port: number) => `http://[::ffff:127.0.0.1]:${port}/`,
    (port: number) => `http://[::ffff:7f00:1]:${port}/`,
    (port: number) => `http://[::1]:${port}/`,
    (port: number) => `http://localhost:${port}/`,
    (port: number) => `http://sneaky.example:${port}/`,
    (port: number) => `http://mixed.example:${port}/`,
  ])('refuses %s', async (spell) => {
    const secret = await serve((_req, res) => reply(res, 'text/plain', 'SECRET'));
    const t = tool({
      names: {
        localhost: ['127.0.0.1'],
        'sneaky.example': ['127.0.0.1'],
        // One public address and one private: every address must pass.
        'mixed.example': ['93.184.215.14', '127.0.0.1'],
      },
    });
    const result = await t.fetch(spell(secret.port));
    expect(result.ok).toBe(false);
    expect(result.text).toMatch(
      /is refused: .*(loopback|unspecified).* address\. web_fetch reaches only public addresses/,
    );
    expect(secret.requests).toHaveLength(0);
  });

  it('refuses a redirect from an allowed host to a private one, and counts redirects', async () => {
    const secret = await serve((_req, res) => reply(res, 'text/plain', 'SECRET'));
    const front = await serve((req, res) => {
      if (req.path === '/to-private') {
        res.writeHead(302, { location: `http://2130706433:${secret.port}/admin` });
        res.end();
      } else if (req.path === '/to-name') {
        res.writeHead(301, { location: `http://rebind.example:${secret.port}/` });
        res.end();
      } else {
        const n = Number(req.path.slice(1));
        res.writeHead(302, { location: `/${n + 1}` });
        res.end();
      }
    });
    const t = tool({
      allowHosts: [`127.0.0.1:${front.port}`],
      names: { 'rebind.example': ['127.0.0.2'] },
    });
    const toPrivate = await t.fetch(`${front.url}/to-private`);
    expect(toPrivate.text).toContain(`http://127.0.0.1:${secret.port}/admin is refused`);
    const toName = await t.fetch(`${front.url}/to-name`);
    expect(toName.text).toContain('rebind.example resolves to 127.0.0.2, a loopback address');
    expect(secret.requests).toHaveLength(0);
    const loop = await t.fetch(`${front.url}/0`);
    expect(loop).toEqual({ ok: false, text: `${front.url}/0 redirects more than 5 times` });
    expect(front.requests.filter((r) => /^\/\d+$/.test(r.path))).toHaveLength(6);
  });

  it('refuses other schemes, credentials in the URL and names that do not resolve', async () => {
    const t = tool();
    expect((await t.fetch('file:///etc/passwd')).text).toBe(
      'only http and https URLs can be fetched, not file:',
    );
    expect((await t.fetch('ftp://example.com/x')).text).toContain('not ftp:');
    expect((await t.fetch('http://user:pw@example.com/')).text).toBe(
      'a URL with a user name or password is refused',
    );
    expect((await t.fetch('http://nowhere.example/')).text).toBe(
      'the host nowhere.example could not be found',
    );
    expect((await t.fetch('not a url')).text).toBe('"not a url" is not a URL');
  });
});

describe('web_fetch limits', () => {
  it('refuses a binary file without reading it', async () => {
    const web = await serve((_req, res) => reply(res, 'image/png', Buffer.alloc(2000, 1)));
    const result = await tool({ allowHosts: [`127.0.0.1:${web.port}`] }).fetch(
      `${web.url}/cat.png`,
    );
    expect(result).toEqual({
      ok: false,
      text: `${web.url}/cat.png is image/png, which web_fetch does not read (it reads web pages, plain text, Markdown and JSON)`,
    });
  });

  it('stops a huge page at the size cap, announced or streamed', async () => {
    const web = await serve((req, res) => {
      if (req.path === '/announced') reply(res, 'text/plain', 'y'.repeat(5000));
      else {
        res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length said
        for (let i = 0; i < 10; i++) res.write('z'.repeat(500));
        res.end();
      }
    });
    const t = tool({
      allowHosts: [`127.0.0.1:${web.port}`],
      limits: { ...WEB_LIMITS, maxBytes: 2048 },
    });
    for (const path of ['/announced', '/streamed'])
      expect(await t.fetch(`${web.url}${path}`)).toEqual({
        ok: false,
        text: `${web.url}${path} is larger than 2 KB; web_fetch stops there`,
      });
  });

  it('gives up on a page that does not finish within the time limit (15 s)', async () => {
    const clock = new FakeClock();
    const web = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('the start, and then nothing'); // never ends
    });
    const t = tool({ allowHosts: [`127.0.0.1:${web.port}`], clock });
    const pending = t.fetch(`${web.url}/slow`);
    await vi.waitFor(() => expect(web.requests).toHaveLength(1));
    clock.advance(14_999);
    clock.advance(1);
    expect(await pending).toEqual({
      ok: false,
      text: `${web.url}/slow did not answer within 15 s`,
    });
  });

  it('an error status is an error result', async () => {
    const web = await serve((_req, res) => reply(res, 'text/html', 'gone', 404));
    const result = await tool({ allowHosts: [`127.0.0.1:${web.port}`] }).fetch(`${web.url}/x`);
    expect(result).toEqual({ ok: false, text: `${web.url}/x answered 404 Not Found` });
  });
});
