import { FakeWeb, reply, type SeenRequest } from './web-server.ts';

export interface FakeHit {
  title: string;
  url: string;
  snippet: string;
}

/**
 * Fake Brave, Tavily and SearXNG APIs on one 127.0.0.1 server, at each provider's documented
 * paths, answering in its documented shape: Brave `GET /res/v1/web/search` (`web.results`,
 * `description`), Tavily `POST /search` and `GET /usage` (`results`, `content`), SearXNG
 * `GET /search?format=json` and `GET /config`. `key` is the only key accepted (401
 * otherwise); `failWith` makes the next searches answer that status.
 */
export class FakeSearch {
  hits: FakeHit[] = [
    {
      title: 'Apple <strong>fruit</strong>',
      url: 'https://example.org/apple',
      snippet: 'The <strong>apple</strong> &amp; its tree',
    },
    { title: 'Cider', url: 'https://example.org/cider', snippet: 'Made from apples' },
  ];
  failWith: number | undefined;

  private constructor(
    private readonly web: FakeWeb,
    readonly key: string,
  ) {}

  static async start(key = 'search-key-123'): Promise<FakeSearch> {
    let fake: FakeSearch | undefined;
    const web = await FakeWeb.start((req, res) => fake?.answer(req, res));
    fake = new FakeSearch(web, key);
    return fake;
  }

  get url(): string {
    return this.web.url;
  }

  /** The searches received (not the doctor's checks). */
  searches(): SeenRequest[] {
    return this.web.requests.filter((r) => !/^\/(usage|config)/.test(r.path));
  }

  get requests(): SeenRequest[] {
    return this.web.requests;
  }

  stop(): Promise<void> {
    return this.web.stop();
  }

  private answer(req: SeenRequest, res: Parameters<typeof reply>[0]) {
    const json = (body: unknown, status = 200) =>
      reply(res, 'application/json', JSON.stringify(body), status);
    const path = req.path.split('?')[0];
    const brave = path === '/res/v1/web/search' && req.method === 'GET';
    const tavily =
      (path === '/search' || path === '/usage') && req.headers.authorization !== undefined;
    const searxng = (path === '/search' && req.path.includes('format=json')) || path === '/config';
    if (brave && req.headers['x-subscription-token'] !== this.key)
      return json({ type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID' } }, 401);
    if (tavily && req.headers.authorization !== `Bearer ${this.key}`)
      return json({ detail: { error: 'Unauthorized: missing or invalid API key.' } }, 401);
    if (path === '/usage' || path === '/config') return json({ ok: true });
    if (this.failWith) return json({ error: 'failure' }, this.failWith);
    if (brave)
      return json({
        type: 'search',
        web: {
          type: 'search',
          results: this.hits.map((h) => ({ title: h.title, url: h.url, description: h.snippet })),
        },
      });
    if (tavily && req.method === 'POST')
      return json({
        query: JSON.parse(req.body).query,
        results: this.hits.map((h) => ({
          title: h.title,
          url: h.url,
          content: h.snippet,
          score: 0.9,
        })),
      });
    if (searxng)
      return json({
        query: 'q',
        number_of_results: this.hits.length,
        results: this.hits.map((h) => ({
          title: h.title,
          url: h.url,
          content: h.snippet,
          engine: 'x',
        })),
      });
    return json({ error: 'not found' }, 404);
  }
}
