import type { Config } from '../config/config.ts';
import type { Pack } from '../packs/loader.ts';
import { missingDefaultMessage } from '../routing/default-pack.ts';
import { type Check, fail, pass, warn } from './check.ts';

/**
 * Which pack a new conversation starts with (DEFAULT_PACK, SPEC §1): the named pack, loaded;
 * the picker when it is empty; a ✗ when it names no loaded pack (start-up stops), a warning
 * when the built-in default `assistant` is not among several loaded packs (the picker).
 */
export function checkDefaultPack(config: Config, packs: readonly Pack[]): Check {
  const { name, explicit } = config.defaultPack;
  const loaded = packs.map((p) => p.name);
  if (name === '')
    return pass(
      loaded.length >= 2
        ? 'default pack: none (DEFAULT_PACK is empty): a new conversation gets the pack picker'
        : 'default pack: none (DEFAULT_PACK is empty)',
    );
  if (loaded.includes(name))
    return pass(`default pack: ${name} answers a new conversation (DEFAULT_PACK)`);
  if (explicit)
    return fail(
      `default pack: DEFAULT_PACK names "${name}", which is not a loaded pack: satchel will not start`,
      `Set DEFAULT_PACK to one of ${loaded.join(', ') || '(no pack is loaded)'}, or leave it empty for the pack picker.`,
    );
  if (loaded.length < 2)
    return pass(`default pack: ${name} is not loaded; ${loaded[0] ?? 'no pack'} answers`);
  return warn(
    `default pack: ${missingDefaultMessage(name, loaded)}`,
    `Add the ${name} pack to SATCHEL_PACKS (the repository's packs/ has it), or set DEFAULT_PACK.`,
  );
}

/**
 * Research needs a search provider (SPEC §3, §13): without WEB_SEARCH_PROVIDER, the packs
 * that enable web_search cannot search (the tool is not offered to the model), and the
 * check names the variable to set. Nothing when a provider is set (checkSearch tries it).
 */
export function checkSearchNeeded(config: Config, packs: readonly Pack[]): Check[] {
  if (config.web.search) return [];
  const searching = packs.filter((p) => p.manifest.tools.includes('web_search'));
  if (searching.length === 0) return [];
  return [
    warn(
      `web search: off, WEB_SEARCH_PROVIDER is not set: ${searching.map((p) => p.name).join(', ')} cannot research the web`,
      'Set WEB_SEARCH_PROVIDER to brave (with BRAVE_API_KEY), tavily (with TAVILY_API_KEY) or searxng (with SEARXNG_URL) in .env.',
    ),
  ];
}
