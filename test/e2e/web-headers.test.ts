import { type IncomingHttpHeaders, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../../src/dashboard/handler.ts';
import { ChatClient, shownText } from '../support/chat-client.ts';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * The headers and same-origin contract of the dashboard's server (SPEC §16), walked over
 * every route its router lists, the web chat's among them: a route added later is covered
 * without touching this file.
 */
let h: Harness;
let chat: ChatClient;
let token: string;
let routes: readonly Route[];

beforeAll(async () => {
  const printed: string[] = [];
  h = await startHarness({}, { app: { announce: (line) => printed.push(line) } });
  const url = printed.find((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;
  token = decodeURIComponent(new URL(url).searchParams.get('token')!);
  chat = await ChatClient.open(url);
  await chat.connect();
  routes = h.app.routes;
}, 30_000);

afterAll(async () => {
  chat?.close();
  await h?.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request with exactly these headers (node:http: fetch would add its own and cannot set
 * Host). Resolves with the head and what came of the body in 300 ms at most, so an event
 * stream's answer is read too.
 */
function call(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, chat.base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      const done = () => {
        clearTimeout(timer);
        res.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      };
      const timer = setTimeout(done, 300);
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A concrete path for a route (a prefix route gets a name under it). */
const pathOf = (route: Route) => route.path.replace(/\/\*$/, '/x');

const sameOrigin = () => ({ origin: chat.base.origin, 'content-type': 'application/json' });
const withCookie = (headers: Record<string, string> = {}) => ({ cookie: chat.cookie, ...headers });

/** The contract: nothing from elsewhere, no sniffing, no framing. */
function expectProtected(answer: Answer, what: string): void {
  const csp = String(answer.headers['content-security-policy'] ?? '');
  const directives = new Map(
    csp.split(';').map((d) => {
      const [name = '', ...sources] = d.trim().split(/\s+/);
      return [name, sources] as const;
    }),
  );
  expect(directives.get('default-src'), `${what}: default-src`).toEqual(["'none'"]);
  expect(directives.get('frame-ancestors'), `${what}: frame-ancestors`).toEqual(["'none'"]);
  // Every source names this server or nothing: no host, no scheme but data: for images.
  for (const [name, sources] of directives)
    for (const source of sources)
      expect(
        ["'self'", "'none'", ...(name === 'img-src' ? ['data:'] : [])],
        `${what}: ${name}`,
      ).toContain(source);
  expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
  expect(answer.headers['x-frame-options'], what).toBe('DENY');
}

describe('the headers every answer carries', () => {
  it('lists the chat and the dashboard among the routes it walks', () => {
    const listed = routes.map((r) => `${r.method} ${r.path}`);
    for (const route of [
      'GET /',
      'GET /api/usage',
      'GET /healthz',
      'GET /chat',
      'GET /chat/events',
      'GET /chat/manifest.webmanifest',
      'POST /chat/send',
      'POST /chat/press',
    ])
      expect(listed).toContain(route);
  });

  it('on every route, with the token and without, for GET, HEAD and POST, and on every error', async () => {
    for (const route of routes) {
      const path = pathOf(route);
      const tries: [string, Record<string, string>, string?][] =
        route.method === 'GET'
          ? [
              ['GET', withCookie()],
              ['HEAD', withCookie()],
              ['GET', {}],
            ]
          : [
              // Not a JSON object: every route refuses it, so the walk changes nothing.
              ['POST', withCookie(sameOrigin()), '[]'],
              ['POST', sameOrigin(), '[]'],
              ['POST', withCookie({ origin: 'http://evil.example' }), '[]'],
            ];
      for (const [method, headers, body] of tries) {
        const answer = await call(method, path, headers, body);
        expectProtected(answer, `${method} ${path} (${answer.status})`);
      }
    }
    // Errors: no such page, no such method, another host name, a bad parameter, bad JSON.
    const errors: [string, string, Record<string, string>, string?][] = [
      ['GET', '/nope', withCookie()],
      ['GET', '/chat/nope', withCookie()],
      ['DELETE', '/api/usage', { authorization: `Bearer ${token}` }],
      ['GET', '/chat', { host: 'evil.example' }],
      ['GET', '/api/usage?days=0', withCookie()],
      ['POST', '/chat/send', withCookie(sameOrigin()), 'not json'],
      ['POST', '/chat/send', withCookie({ origin: chat.base.origin }), '{}'],
    ];
    const statuses: number[] = [];
    for (const [method, path, headers, body] of errors) {
      const answer = await call(method, path, headers, body);
      statuses.push(answer.status);
      expectProtected(answer, `${method} ${path} (${answer.status})`);
    }
    expect(statuses).toEqual([404, 404, 405, 403, 400, 400, 403]);
  });
});

describe('the Host header', () => {
  it('must be exactly a loopback name and a port: anything after it is refused, with the token', async () => {
    const port = chat.base.port;
    const forged = [
      `127.0.0.1:${port}@evil.example`,
      `localhost:${port}@evil.example`,
      `[::1]:${port}@evil.example`,
      `127.0.0.1:${port}.evil.example`,
      `127.0.0.1.evil.example:${port}`,
      `localhost.:${port}`,
      `127.0.0.1:${port}/x`,
      `127.0.0.1:${port} evil.example`,
      `127.0.0.1:`,
      'evil.example',
    ];
    for (const host of forged) {
      const answer = await call('GET', '/chat/conversations', withCookie({ host }));
      expect(answer.status, host).toBe(403);
      expect(answer.body, host).toBe('Forbidden host\n');
    }
    // This machine's names, on its port or another (an SSH tunnel's), are answered.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST:9'])
      expect((await call('GET', '/chat/conversations', withCookie({ host }))).status, host).toBe(
        200,
      );
  });
});

describe('a request that changes something comes from the page itself', () => {
  it('refuses every POST route from another site with the cookie, and lets the page through', async () => {
    const posts = routes.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    // What the body asks would work if it were let in (a line to send, a button to press).
    const body = JSON.stringify({ text: 'forged', message: 1, data: 'pack:alpha' });
    const json = { 'content-type': 'application/json' };
    const forged: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      // Another port on this machine is the same site: the SameSite cookie goes along.
      { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
      { origin: 'http://localhost:1' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      // No Origin and no Sec-Fetch-Site: no browser in use sends that, with a cookie.
      {},
      // The page's origin claimed, its fetch metadata saying otherwise.
      { origin: chat.base.origin, 'sec-fetch-site': 'cross-site' },
    ];
    for (const route of [...posts, { method: 'POST', path: '/api/usage' } as const]) {
      for (const headers of forged) {
        const answer = await call('POST', pathOf(route), withCookie({ ...json, ...headers }), body);
        expect(answer.status, `${route.path} ${JSON.stringify(headers)}`).toBe(403);
        expect(answer.body).toContain('Cross-site requests are refused');
      }
      // Any other method too.
      const put = await call('PUT', pathOf(route), withCookie({ origin: 'http://evil.example' }));
      expect(put.status, `PUT ${route.path}`).toBe(403);
    }
    expect(h.model.chatRequests()).toEqual([]);
    expect(h.rows('SELECT 1 FROM edge_inbox')).toEqual([]);
    expect(chat.entries()).toEqual([]);

    // From the page itself (its Origin, or only its fetch metadata) each route takes the
    // request and judges the body: one that is not a JSON object is a 400 of its own, not a
    // refusal (and changes nothing, so the answers below are the only ones).
    const own: Record<string, string>[] = [
      { origin: chat.base.origin },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { origin: chat.base.origin, 'sec-fetch-site': 'same-origin' },
    ];
    for (const route of posts)
      for (const headers of own) {
        const answer = await call('POST', pathOf(route), withCookie({ ...json, ...headers }), '[]');
        expect(answer.status, `${route.path} ${JSON.stringify(headers)}`).toBe(400);
      }
    // A script with the token in a header (no browser sends one unasked) needs neither.
    const script = await call(
      'POST',
      '/chat/send',
      { authorization: `Bearer ${token}`, ...json },
      JSON.stringify({ text: 'from a script' }),
    );
    expect(script.status).toBe(202);
    await chat.send('from the page');
    const replies = await chat.waitForBot(2);
    expect(replies.map(shownText).sort()).toEqual(['echo: from a script', 'echo: from the page']);
  });
});

describe('the web app manifest', () => {
  it('is served as the page links it, without the token, with icons of the sizes it names', async () => {
    const page = await call('GET', '/chat', withCookie());
    const link = /<link rel="manifest" href="([^"]+)"( crossorigin="use-credentials")? \/>/.exec(
      page.body,
    );
    expect(link).not.toBeNull();
    // Without crossorigin="use-credentials" a browser fetches it with no cookie.
    const credentials = link![2] ? withCookie() : {};
    const manifestPath = link![1]!;
    const answer = await call('GET', manifestPath, credentials);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/manifest+json');
    expectProtected(answer, manifestPath);
    const manifest = JSON.parse(answer.body);
    expect(manifest).toMatchObject({
      name: 'satchel',
      short_name: 'satchel',
      start_url: '/chat',
      display: 'standalone',
    });
    const theme = /<meta name="theme-color" content="([^"]+)"/.exec(page.body)?.[1];
    expect(manifest.theme_color).toBe(theme);
    const icons = manifest.icons as { src: string; sizes: string; type: string }[];
    expect(new Set(icons.map((i) => i.sizes))).toEqual(new Set(['192x192', '512x512']));
    for (const icon of icons) {
      const url = new URL(icon.src, new URL(manifestPath, chat.base));
      const png = await getBytes(url, credentials);
      expect(png.status, icon.src).toBe(200);
      expect(png.type, icon.src).toBe('image/png');
      expect(icon.type).toBe('image/png');
      expect(pngSize(png.bytes), icon.src).toBe(icon.sizes);
    }
  });
});

/** A file's bytes (call() reads text, which would mangle a PNG). */
async function getBytes(url: URL, headers: Record<string, string>) {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** A PNG's size from its header ("192x192"); throws when it is no PNG. */
function pngSize(bytes: Buffer): string {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}
