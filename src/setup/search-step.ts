import type { Choice } from './prompter.ts';
import { SetupFailed, type SetupUi } from './ui.ts';

export const SEARCH_CHOICES = ['brave', 'tavily', 'searxng', 'none'] as const;
export type SearchChoice = (typeof SEARCH_CHOICES)[number];

const MENU: Choice[] = [
  { value: 'brave', note: 'Brave Search API (a key; priced per search)' },
  { value: 'tavily', note: 'Tavily (a key; priced per search)' },
  { value: 'searxng', note: 'your own SearXNG instance (its URL; free)' },
  { value: 'none', note: 'no web search (web_search is not offered)' },
];

/** The variable that holds each provider's key or URL (SPEC §13). */
const NEEDS = {
  brave: { name: 'BRAVE_API_KEY', what: 'Brave Search API key', secret: true },
  tavily: { name: 'TAVILY_API_KEY', what: 'Tavily API key', secret: true },
  searxng: {
    name: 'SEARXNG_URL',
    what: 'SearXNG address (e.g. http://127.0.0.1:8888)',
    secret: false,
  },
} as const;

export interface SearchGiven {
  search?: SearchChoice | undefined;
  /** `--search-key` (Brave, Tavily) or `--search-url` (SearXNG). */
  searchKey?: string | undefined;
  searchUrl?: string | undefined;
}

/**
 * The web search provider (SPEC §13) as `.env` answers: `WEB_SEARCH_PROVIDER` and its key or
 * URL, the current one offered as the default and a key already in the file kept. `none`
 * drops WEB_SEARCH_PROVIDER and keeps the keys. Under `--yes` without `--search` nothing
 * changes; a provider without its key or URL is a SetupFailed.
 */
export async function chooseSearch(
  given: SearchGiven,
  current: Readonly<Record<string, string | undefined>>,
  ui: SetupUi,
): Promise<Map<string, string | undefined>> {
  const answers = new Map<string, string | undefined>();
  const now = current.WEB_SEARCH_PROVIDER || 'none';
  let choice = given.search;
  if (choice === undefined) {
    if (!ui.prompter) return answers;
    ui.say('\nWeb search, for research that cites its sources:');
    const at = Math.max(0, SEARCH_CHOICES.indexOf(now as SearchChoice));
    choice = (await ui.prompter.choose('Search provider', MENU, { fallback: at })) as SearchChoice;
  }
  if (choice === 'none') {
    answers.set('WEB_SEARCH_PROVIDER', undefined);
    return answers;
  }
  const need = NEEDS[choice];
  const flag = choice === 'searxng' ? given.searchUrl : given.searchKey;
  let value = flag ?? current[need.name];
  if (value === undefined && ui.prompter) {
    const question = `${need.what} for ${need.name}${need.secret ? ', not shown as you type' : ''}: `;
    value =
      (need.secret ? await ui.prompter.askSecret(question) : await ui.prompter.ask(question)) ||
      undefined;
  }
  if (!value)
    throw new SetupFailed(
      `web search: ${choice} needs ${need.name}`,
      `Give it with ${choice === 'searxng' ? '--search-url URL' : '--search-key KEY'}, or choose --search none.`,
    );
  if (choice === 'searxng' && !/^https?:\/\/[^/]/.test(value))
    throw new SetupFailed(
      `web search: "${value}" is not an http(s) address`,
      "Give your SearXNG instance's address, e.g. --search-url http://127.0.0.1:8888",
    );
  answers.set('WEB_SEARCH_PROVIDER', choice);
  answers.set(need.name, value);
  return answers;
}
