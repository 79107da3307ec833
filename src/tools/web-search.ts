import { z } from 'zod';
import type { Clock } from '../core/clock.ts';
import type { Ledger, UsageScope } from '../usage/ledger.ts';
import { QuotaExceededError, type QuotaGate, type QuotaScope } from '../usage/quota.ts';
import type { SearchProvider } from './search/provider.ts';
import { defineTool, ToolError } from './tool.ts';

/** What web_search needs: the provider, and the quota gate and ledger every paid call passes. */
export interface WebSearchDeps {
  /** Undefined when WEB_SEARCH_PROVIDER is not set. */
  provider: SearchProvider | undefined;
  quota: Pick<QuotaGate, 'check'>;
  ledger: Pick<Ledger, 'record'>;
  clock: Clock;
}

/** Who the turn's searches are booked for. */
export interface SearchTurn {
  scope: UsageScope;
  quota: QuotaScope;
}

const schema = z.object({
  query: z.string().trim().min(1).max(400),
  count: z.number().int().min(1).max(10).optional().describe('How many results (1–10, default 5).'),
});

/**
 * `web_search`: `{title, url, snippet}` results from the configured provider. Each search
 * passes the quota gate first and is a `search` row in the ledger (priced per call from the
 * model catalog as `<provider>:search`, else unknown), failed ones included.
 */
export function createWebSearchTool(deps: WebSearchDeps, turn: SearchTurn) {
  return defineTool({
    name: 'web_search',
    description:
      'Search the web. Returns JSON {results: [{title, url, snippet}]}; read a result with web_fetch when the snippet is not enough.',
    schema,
    effect: 'read',
    untrusted: ({ query }) => `web_search '${query.slice(0, 80).replaceAll("'", '’')}'`,
    async run({ query, count = 5 }, signal) {
      const { provider, clock } = deps;
      if (!provider)
        throw new ToolError(
          'web search is not set up: the owner sets WEB_SEARCH_PROVIDER (brave, tavily or searxng) and its key or URL',
        );
      try {
        // Under a USD cap an unpriced search is refused before it is made, like any paid call.
        deps.quota.check(turn.quota, { kind: 'search', provider: provider.name, model: 'search' });
      } catch (error) {
        // QuotaUnpricedError is one too: the model reads why the search was refused.
        if (error instanceof QuotaExceededError) throw new ToolError(error.userMessage);
        throw error;
      }
      const started = clock.now();
      const row = {
        kind: 'search' as const,
        provider: provider.name,
        model: 'search',
        scope: turn.scope,
      };
      try {
        const results = await provider.search(query, count, signal);
        deps.ledger.record({ ...row, latencyMs: clock.now() - started, ok: true });
        if (results.length === 0) return JSON.stringify({ results, note: 'no results' });
        return JSON.stringify({ results });
      } catch (error) {
        const reason = signal.aborted ? 'aborted' : (error as Error).message;
        deps.ledger.record({ ...row, latencyMs: clock.now() - started, ok: false, error: reason });
        throw error;
      }
    },
  });
}
