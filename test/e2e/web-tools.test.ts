import { describe, expect, it } from 'vitest';
import { conversation, toolResults, unwrapped } from '../fakes/model-requests.ts';
import { lastUserText, type RecordedRequest } from '../fakes/model-server.ts';
import { FakeSearch } from '../fakes/search-server.ts';
import { reply } from '../fakes/web-server.ts';
import { ALLOWED_USER, fixtureWithTools, harnessPerTest, settled } from '../support/harness.ts';
import { linksPage, nestedPage } from '../support/hostile-pages.ts';
import { webServers } from '../support/web-servers.ts';

const h = harnessPerTest();

const servers = webServers();
const web = servers.start;

const alphaWith = (tools: string[]) => fixtureWithTools('alpha', tools);

const toolNames = (request: RecordedRequest | undefined): string[] =>
  (request?.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);

describe('web_fetch through a turn', () => {
  it('reads an allow-listed local page; the model gets its text and answers', async () => {
    const page = await web((_req, res) =>
      reply(
        res,
        'text/html',
        `<html><head><title>Lexicon</title><script>SCRIPT</script></head><body><nav>NAV</nav><article><h1>serendipity</h1><p>${'Serendipity means finding something good without looking for it. '.repeat(6)}</p></article></body></html>`,
      ),
    );
    await h.start({
      SATCHEL_PACKS: alphaWith(['memory', 'web_fetch']),
      WEB_FETCH_ALLOW_HOSTS: `127.0.0.1:${page.port}`,
    });
    h.model.enqueue(
      { toolCalls: [{ name: 'web_fetch', arguments: { url: `${page.url}/serendipity` } }] },
      { text: 'It means a happy accident.' },
    );
    h.say('what does serendipity mean? look it up');
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['It means a happy accident.']);
    const [first, second] = h.model.chatRequests();
    expect(toolNames(first)).toEqual(['memory', 'web_fetch']);
    const [result] = toolResults(second);
    expect(result).toContain('Title: Lexicon');
    expect(result).toContain('Serendipity means finding something good without looking for it.');
    expect(result).not.toContain('SCRIPT');
    expect(result).not.toContain('NAV');
    expect(page.requests).toHaveLength(1);
  });

  it('a private address, a redirect to one and a binary file are error results; the turn goes on', async () => {
    const secret = await web((_req, res) => reply(res, 'text/plain', 'SECRET'));
    const front = await web((req, res) => {
      if (req.path === '/photo') reply(res, 'image/jpeg', Buffer.alloc(1000, 7));
      else {
        res.writeHead(302, { location: `http://0x7f.1:${secret.port}/` });
        res.end();
      }
    });
    await h.start(
      {
        SATCHEL_PACKS: alphaWith(['web_fetch']),
        WEB_FETCH_ALLOW_HOSTS: `127.0.0.1:${front.port}`,
      },
      { app: { web: { resolve: async () => ['127.0.0.1'] } } },
    );
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'web_fetch', arguments: { url: `http://2130706433:${secret.port}/` } },
          { name: 'web_fetch', arguments: { url: `http://intranet.example:${secret.port}/` } },
          { name: 'web_fetch', arguments: { url: `${front.url}/jump` } },
          { name: 'web_fetch', arguments: { url: `${front.url}/photo` } },
        ],
      },
      { text: 'I could not read those.' },
    );
    h.say('read these');
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['I could not read those.']);
    const results = toolResults(h.model.chatRequests()[1]);
    expect(results).toHaveLength(4);
    for (const result of results) expect(result).toMatch(/^Error: /);
    expect(results[0]).toContain('a loopback address');
    expect(results[1]).toContain('intranet.example resolves to 127.0.0.1, a loopback address');
    expect(results[2]).toContain(`http://127.0.0.1:${secret.port}/ is refused`);
    expect(results[3]).toContain('is image/jpeg, which web_fetch does not read');
    expect(secret.requests).toHaveLength(0);
    expect(h.logs('tool_error')).toHaveLength(4);
  });
});

describe('web_fetch on a hostile page', () => {
  const OTHER = 222;

  /**
   * The allowed user asks for `page`; the moment it is requested, another user writes in
   * their own chat. Returns the tool result, whether the other chat had its answer by the
   * time the tool result reached the model, and how often a 10 ms timer fired meanwhile.
   */
  async function readWhileAnotherChatWrites(page: string) {
    let ticks = 0;
    let timer: NodeJS.Timeout | undefined;
    const site = await web((_req, res) => {
      timer = setInterval(() => ticks++, 10);
      h.tg.text({ userId: OTHER, text: 'ping' });
      reply(res, 'text/html', page);
    });
    await h.start({
      SATCHEL_PACKS: alphaWith(['web_fetch']),
      WEB_FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      ALLOWED_USER_IDS: `${ALLOWED_USER},${OTHER}`,
    });
    let otherAnsweredFirst: boolean | undefined;
    let ticksWhileReading = 0;
    h.model.setDefault((req) => {
      if (conversation(req).at(-1)?.role === 'tool') {
        clearInterval(timer);
        ticksWhileReading = ticks;
        otherAnsweredFirst = h.tg.texts(OTHER).includes('pong');
        return { text: 'That page was hard to read.' };
      }
      if (lastUserText(req) === 'ping') return { text: 'pong' };
      return { toolCalls: [{ name: 'web_fetch', arguments: { url: `${site.url}/page` } }] };
    });
    h.say('read that page');
    await settled(h, 2, 20_000);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['That page was hard to read.']);
    expect(h.tg.texts(OTHER)).toEqual(['pong']);
    const request = h.model.chatRequests().find((r) => toolResults(r).length > 0);
    return { result: toolResults(request)[0] ?? '', otherAnsweredFirst, ticksWhileReading };
  }

  it('2,000 nested blocks: the text at the bottom, and other chats are answered', async () => {
    const { result } = await readWhileAnotherChatWrites(nestedPage(2000));
    expect(result).toContain('Title: Deep');
    expect(result).toContain('DEEP-TEXT at the bottom');
  });

  it('5 MB of links: while it is read another chat is answered and the event loop turns; then an error result or cut text', async () => {
    const { result, otherAnsweredFirst, ticksWhileReading } = await readWhileAnotherChatWrites(
      linksPage(5_000_000),
    );
    expect(otherAnsweredFirst).toBe(true);
    // Reading takes seconds; a blocked loop would have fired the timer a handful of times.
    expect(ticksWhileReading).toBeGreaterThan(100);
    // Which limit is met first (the 5 s clock or the worker's heap) depends on the machine.
    expect(result).toMatch(/^Error: the page is too (complex|large) to read|link number 0/);
    expect(result.length).toBeLessThan(20_500);
  }, 30_000);
});

describe('web_search through a turn', () => {
  async function start(tools: string[]) {
    const api = await FakeSearch.start();
    servers.keep(api);
    await h.start({
      SATCHEL_PACKS: alphaWith(tools),
      WEB_SEARCH_PROVIDER: 'brave',
      BRAVE_API_KEY: api.key,
      WEB_SEARCH_BASE_URL: api.url,
    });
    return api;
  }

  it('gives the model the results and books a search row in the ledger, priced per call by the bundled catalog', async () => {
    const api = await start(['web_search']);
    h.model.enqueue(
      { toolCalls: [{ name: 'web_search', arguments: { query: 'apple cider', count: 2 } }] },
      { text: 'Cider is made from apples.' },
    );
    h.say('search for apple cider');
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Cider is made from apples.']);
    expect(JSON.parse(unwrapped(toolResults(h.model.chatRequests()[1])[0]!)).results).toEqual([
      { title: 'Apple fruit', url: 'https://example.org/apple', snippet: 'The apple & its tree' },
      { title: 'Cider', url: 'https://example.org/cider', snippet: 'Made from apples' },
    ]);
    expect(api.searches()[0]?.path).toBe('/res/v1/web/search?q=apple+cider&count=2');
    const rows = h.rows<Record<string, unknown>>(
      "SELECT kind, provider, model, pack, ok, cost_usd, price_known FROM usage_events WHERE kind = 'search'",
    );
    expect(rows).toEqual([
      {
        kind: 'search',
        provider: 'brave',
        model: 'search',
        pack: 'alpha',
        ok: 1,
        // The bundled catalog: Brave's Search plan, $5 per 1,000 requests (SPEC §14).
        cost_usd: 0.005,
        price_known: 1,
      },
    ]);
  });

  it('a provider answering 500 then 429 is an error result each time; the turn goes on', async () => {
    const api = await start(['web_search']);
    api.failWith = 500;
    h.model.enqueue(
      { toolCalls: [{ name: 'web_search', arguments: { query: 'apple' } }] },
      { text: 'Search is down.' },
    );
    h.say('search apple');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Search is down.']);
    expect(toolResults(h.model.chatRequests()[1])).toEqual([
      'Error: brave failed (500); try again later',
    ]);

    api.failWith = 429;
    h.model.enqueue(
      { toolCalls: [{ name: 'web_search', arguments: { query: 'apple' } }] },
      { text: 'Still down.' },
    );
    h.say('again');
    await settled(h, 2);
    expect(toolResults(h.model.chatRequests()[3]).at(-1)).toMatch(
      /^Error: brave is limiting searches right now \(429/,
    );
    expect(
      h.rows("SELECT ok FROM usage_events WHERE kind = 'search' ORDER BY id").map((r) => r.ok),
    ).toEqual([0, 0]);
  });

  it('a pack without the web tools never sees them, even with search configured', async () => {
    await start(['memory', 'db_query']);
    h.model.enqueue({ text: 'hi' });
    h.say('hello');
    await settled(h, 1);
    expect(toolNames(h.model.chatRequests()[0])).toEqual(['memory', 'db_query']);
  });
});
