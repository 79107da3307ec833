import {
  requestJson,
  resultsOf,
  SearchError,
  type SearchProvider,
  type SearchProviderName,
} from './provider.ts';

/** What WEB_SEARCH_PROVIDER and its key or URL say (config.ts). */
export interface SearchConfig {
  provider: SearchProviderName;
  braveApiKey?: string | undefined;
  tavilyApiKey?: string | undefined;
  searxngUrl?: string | undefined;
  /** WEB_SEARCH_BASE_URL: the API root, before the provider's documented paths. */
  baseUrl?: string | undefined;
}

const root = (url: string) => url.replace(/\/+$/, '');

/**
 * Brave Search: `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token`; results
 * in `web.results[]` (`description` is the snippet). Brave has no free request that proves
 * a key: every call counts against the plan, so the doctor does not spend one.
 */
function brave(key: string, base = 'https://api.search.brave.com'): SearchProvider {
  return {
    name: 'brave',
    async search(query, count, signal) {
      const url = new URL(`${root(base)}/res/v1/web/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      const body = (await requestJson('brave', 'BRAVE_API_KEY', url.href, {
        headers: { accept: 'application/json', 'x-subscription-token': key },
        signal,
      })) as { web?: { results?: unknown } };
      return resultsOf(body?.web?.results, 'description', count);
    },
  };
}

/**
 * Tavily: `POST /search` with a bearer key and `{query, max_results}`; results in
 * `results[]` (`content` is the snippet). `GET /usage` reads the key's usage without
 * spending a credit: the doctor's check.
 */
function tavily(key: string, base = 'https://api.tavily.com'): SearchProvider {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return {
    name: 'tavily',
    async search(query, count, signal) {
      const body = (await requestJson('tavily', 'TAVILY_API_KEY', `${root(base)}/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, max_results: count }),
        signal,
      })) as { results?: unknown };
      return resultsOf(body?.results, 'content', count);
    },
    async check(signal) {
      await requestJson('tavily', 'TAVILY_API_KEY', `${root(base)}/usage`, { headers, signal });
    },
  };
}

/**
 * SearXNG: a self-hosted instance's `GET /search?q=…&format=json` (the instance must list
 * `json` under `search.formats`); results in `results[]` (`content` is the snippet). It
 * takes no count, so the first results are kept. `GET /config` is the doctor's check.
 */
function searxng(base: string): SearchProvider {
  return {
    name: 'searxng',
    async search(query, count, signal) {
      const url = new URL(`${root(base)}/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = (await requestJson('searxng', 'SEARXNG_URL', url.href, {
        headers: { accept: 'application/json' },
        signal,
      })) as { results?: unknown };
      return resultsOf(body?.results, 'content', count);
    },
    async check(signal) {
      await requestJson('searxng', 'SEARXNG_URL', `${root(base)}/config`, { signal });
    },
  };
}

/** The configured search provider; a missing key or URL is a config error caught earlier. */
export function createSearchProvider(config: SearchConfig): SearchProvider {
  const need = (value: string | undefined, variable: string) => {
    if (!value) throw new SearchError(`web search needs ${variable}`);
    return value;
  };
  if (config.provider === 'brave')
    return brave(need(config.braveApiKey, 'BRAVE_API_KEY'), config.baseUrl);
  if (config.provider === 'tavily')
    return tavily(need(config.tavilyApiKey, 'TAVILY_API_KEY'), config.baseUrl);
  return searxng(need(config.baseUrl ?? config.searxngUrl, 'SEARXNG_URL'));
}
