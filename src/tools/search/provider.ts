import { ToolError } from '../tool.ts';

/** One search result, as web_search gives it to the model. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export const SEARCH_PROVIDERS = ['brave', 'tavily', 'searxng'] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** A search API behind web_search: one request per search. */
export interface SearchProvider {
  name: SearchProviderName;
  search(query: string, count: number, signal: AbortSignal): Promise<SearchResult[]>;
  /**
   * One request that costs nothing and proves the key (or the instance) works, for the
   * doctor; undefined when the provider has none (a search would spend a paid query).
   */
  check?(signal: AbortSignal): Promise<void>;
}

/** A search provider failed: the message says what, for the model (and the owner's log). */
export class SearchError extends ToolError {
  readonly status: number | undefined;

  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/** What a failed answer means, in words the model can pass on. */
export function statusError(provider: string, status: number, variable: string): SearchError {
  if (status === 401 || status === 403)
    return new SearchError(
      `${provider} refused the search key (${status}); the owner should check ${variable}`,
      status,
    );
  if (status === 429)
    return new SearchError(
      `${provider} is limiting searches right now (429: too many requests or the plan's quota is used up); try again later`,
      status,
    );
  if (status >= 500)
    return new SearchError(`${provider} failed (${status}); try again later`, status);
  return new SearchError(`${provider} refused the search (${status})`, status);
}

/** GETs or POSTs JSON; network failures, bad statuses and non-JSON become SearchErrors. */
export async function requestJson(
  provider: string,
  variable: string,
  url: string,
  init: RequestInit & { signal: AbortSignal },
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (init.signal.aborted) throw init.signal.reason;
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new SearchError(`could not reach ${provider}${cause ? ` (${cause})` : ''}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw statusError(provider, response.status, variable);
  }
  try {
    return await response.json();
  } catch {
    if (init.signal.aborted) throw init.signal.reason;
    throw new SearchError(`${provider} answered something that is not JSON`);
  }
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  '#39': "'",
  nbsp: ' ',
};

/** A snippet as plain text: tags (Brave marks matches with <strong>) and entities gone. */
export function plain(text: unknown, max = 400): string {
  const clean = String(text ?? '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (all, name: string) => ENTITIES[name] ?? all)
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The results of a `[{title, url, <snippet field>}]` list, ignoring malformed entries. */
export function resultsOf(list: unknown, snippetField: string, count: number): SearchResult[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((r): r is Record<string, unknown> => typeof r?.url === 'string')
    .slice(0, count)
    .map((r) => ({
      title: plain(r.title, 200),
      url: String(r.url),
      snippet: plain(r[snippetField]),
    }));
}
