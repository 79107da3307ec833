import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { createSearchProvider } from '../../src/tools/search/providers.ts';
import { createWebSearchTool } from '../../src/tools/web-search.ts';
import type { PaidCall } from '../../src/usage/ledger.ts';
import { QuotaExceededError } from '../../src/usage/quota.ts';
import { FakeSearch } from '../fakes/search-server.ts';

let api: FakeSearch;
beforeEach(async () => {
  api = await FakeSearch.start();
});
afterEach(() => api.stop());

const scope = { pack: 'vocab', chatId: '5', threadId: null, sessionId: 's1', turnId: 't1' };

function searchTool(
  config: Parameters<typeof createSearchProvider>[0],
  quota: { check(): void } = { check: () => {} },
) {
  const booked: PaidCall[] = [];
  const tool = createWebSearchTool(
    {
      provider: createSearchProvider(config),
      quota,
      ledger: { record: (call) => void booked.push(call) },
      clock: systemClock,
    },
    { scope, quota: { pack: 'vocab', sessionId: 's1' } },
  );
  const run = (args: { query: string; count?: number }) =>
    tool.run(args, new AbortController().signal).then(
      (text) => ({ ok: true as const, text }),
      (error: Error) => ({ ok: false as const, text: error.message }),
    );
  return { run, booked };
}

const expected = {
  results: [
    { title: 'Apple fruit', url: 'https://example.org/apple', snippet: 'The apple & its tree' },
    { title: 'Cider', url: 'https://example.org/cider', snippet: 'Made from apples' },
  ],
};

describe('web_search providers at their documented paths', () => {
  it('brave: GET /res/v1/web/search with the subscription token and count', async () => {
    const { run, booked } = searchTool({
      provider: 'brave',
      braveApiKey: api.key,
      baseUrl: api.url,
    });
    expect(await run({ query: 'apple tree', count: 2 })).toEqual({
      ok: true,
      text: JSON.stringify(expected),
    });
    const [request] = api.searches();
    expect(request?.path).toBe('/res/v1/web/search?q=apple+tree&count=2');
    expect(request?.headers['x-subscription-token']).toBe(api.key);
    expect(booked).toMatchObject([
      { kind: 'search', provider: 'brave', model: 'search', scope, ok: true },
    ]);
  });

  it('tavily: POST /search with a bearer key and max_results', async () => {
    const { run } = searchTool({ provider: 'tavily', tavilyApiKey: api.key, baseUrl: api.url });
    expect(await run({ query: 'apple' })).toEqual({ ok: true, text: JSON.stringify(expected) });
    const [request] = api.searches();
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/search');
    expect(JSON.parse(request?.body ?? '')).toEqual({ query: 'apple', max_results: 5 });
  });

  it('searxng: GET /search?format=json on the instance, keeping the first `count` results', async () => {
    const { run } = searchTool({ provider: 'searxng', searxngUrl: `${api.url}/` });
    expect(await run({ query: 'apple', count: 1 })).toEqual({
      ok: true,
      text: JSON.stringify({ results: expected.results.slice(0, 1) }),
    });
    expect(api.searches()[0]?.path).toBe('/search?q=apple&format=json');
  });
});

describe('web_search failures are clear tool errors, booked as failed searches', () => {
  it.each([
    [500, 'brave failed (500); try again later'],
    [503, 'brave failed (503); try again later'],
    [
      429,
      "brave is limiting searches right now (429: too many requests or the plan's quota is used up); try again later",
    ],
  ])('a %s answer', async (status, message) => {
    api.failWith = status;
    const { run, booked } = searchTool({
      provider: 'brave',
      braveApiKey: api.key,
      baseUrl: api.url,
    });
    expect(await run({ query: 'apple' })).toEqual({ ok: false, text: message });
    expect(booked).toMatchObject([{ kind: 'search', ok: false, error: message }]);
  });

  it('a refused key names the variable to check', async () => {
    const { run } = searchTool({ provider: 'tavily', tavilyApiKey: 'wrong', baseUrl: api.url });
    expect(await run({ query: 'apple' })).toEqual({
      ok: false,
      text: 'tavily refused the search key (401); the owner should check TAVILY_API_KEY',
    });
  });

  it('an unreachable provider', async () => {
    await api.stop();
    const { run } = searchTool({ provider: 'searxng', searxngUrl: api.url });
    expect(await run({ query: 'apple' })).toEqual({
      ok: false,
      text: 'could not reach searxng (ECONNREFUSED)',
    });
    api = await FakeSearch.start();
  });

  it('over a cap: no request, the cap named', async () => {
    const quota = {
      check: () => {
        throw new QuotaExceededError(
          'daily token cap',
          'The daily token cap is reached: 10 of 10 used.',
        );
      },
    };
    const { run, booked } = searchTool(
      { provider: 'brave', braveApiKey: api.key, baseUrl: api.url },
      quota,
    );
    expect(await run({ query: 'apple' })).toEqual({
      ok: false,
      text: 'The daily token cap is reached: 10 of 10 used.',
    });
    expect(api.searches()).toHaveLength(0);
    expect(booked).toHaveLength(0);
  });

  it('without a provider it says how to set one up', async () => {
    const tool = createWebSearchTool(
      {
        provider: undefined,
        quota: { check: () => {} },
        ledger: { record: () => {} },
        clock: systemClock,
      },
      { scope, quota: { pack: 'vocab', sessionId: 's1' } },
    );
    await expect(tool.run({ query: 'x' }, new AbortController().signal)).rejects.toThrow(
      'web search is not set up: the owner sets WEB_SEARCH_PROVIDER',
    );
  });
});
