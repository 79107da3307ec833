import type { Config } from '../config/config.ts';
import { ProviderError } from '../core/errors.ts';
import { listModels } from '../providers/probe.ts';
import { type Provider, specOf } from '../providers/registry.ts';
import { SearchError } from '../tools/search/provider.ts';
import { createSearchProvider } from '../tools/search/providers.ts';
import type { ModelUse } from '../usage/unknown-prices.ts';
import { type Check, fail, pass } from './check.ts';

/** Where each use of a model is configured, for the fix of a model the provider lacks. */
function settingOf(use: ModelUse['use']): string {
  if (use === 'chat') return 'LLM_MODEL';
  if (use === 'fallback') return 'LLM_FALLBACK';
  if (use === 'vision') return 'VISION_MODEL';
  if (use === 'stt') return 'STT_MODEL';
  if (use === 'tts') return 'TTS_MODEL';
  return `the \`model\` in the pack.yml of ${use.slice('pack '.length)}`;
}

/**
 * Each provider satchel will call, with one model-list request (no tokens spent): the key
 * is accepted, the host answers, and every model configured for it is on its list. The
 * request is the provider's probe in the registry (providers/clients.ts).
 */
export async function checkProviders(
  config: Config,
  uses: readonly ModelUse[],
  timeoutMs: number,
): Promise<Check[]> {
  const providers = [...new Set(uses.map((u) => u.provider as Provider))];
  return Promise.all(
    providers.map((provider) =>
      checkProvider(
        config,
        provider,
        uses.filter((u) => u.provider === provider),
        timeoutMs,
      ),
    ),
  );
}

async function checkProvider(
  config: Config,
  provider: Provider,
  uses: readonly ModelUse[],
  timeoutMs: number,
): Promise<Check> {
  const what = [...new Set(uses.map((u) => `${u.model} (${u.use})`))].join(', ');
  const signal = AbortSignal.timeout(timeoutMs);
  let listed: string[];
  try {
    listed = await listModels(config, provider, signal);
  } catch (error) {
    return providerFailure(provider, error, signal, timeoutMs);
  }
  const missing = uses.filter((u) => !listed.includes(u.model));
  if (missing.length === 0) return pass(`${provider}: key accepted; ${what}`);
  const [first] = missing;
  return fail(
    `${provider}: key accepted, but it does not offer ${missing.map((m) => m.model).join(', ')}`,
    `Set ${settingOf(first!.use)} to a model ${provider} lists` +
      (listed.length > 0 ? ` (it lists ${sample(listed)})` : '') +
      '.',
  );
}

/** A failed model-list request as a ✗ line with its fix (doctor, and setup's key check). */
export function providerFailure(
  provider: Provider,
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
): Check {
  const where = baseUrlHint(provider);
  if (signal.aborted)
    return fail(
      `${provider}: no answer within ${Math.round(timeoutMs / 1000)} s`,
      `Check the network, and ${where}.`,
    );
  if (error instanceof ProviderError && error.status === undefined)
    return fail(
      `${provider}: cannot reach it (${error.message})`,
      `Check the network, and ${where}.`,
    );
  if (error instanceof ProviderError && error.hint) {
    const what = error.status === 403 ? 'the key may not do this' : 'the API key was refused';
    return fail(`${provider}: ${what} (${error.status})`, `${capitalize(error.hint)}.`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return fail(
    `${provider}: ${message}`,
    `Check the ${provider} settings in .env (see .env.example).`,
  );
}

function baseUrlHint(provider: Provider): string {
  return `${specOf(provider).env.baseUrl} if it is set (the server it names must be running)`;
}

function sample(names: readonly string[]): string {
  const shown = names.slice(0, 8).join(', ');
  return names.length > 8 ? `${shown}, …` : shown;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * web_search's provider: its key (or instance) checked with one request that costs nothing,
 * when the provider has one (Tavily's `/usage`, SearXNG's `/config`). Brave has none — any
 * request is a paid query — so its key is said to be not checked. Nothing without
 * WEB_SEARCH_PROVIDER.
 */
export async function checkSearch(config: Config, timeoutMs: number): Promise<Check[]> {
  if (!config.web.search) return [];
  const provider = createSearchProvider(config.web.search);
  const name = `web search: ${provider.name}`;
  if (!provider.check)
    return [
      pass(`${name}: key set, not checked (every ${provider.name} request is a paid search)`),
    ];
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    await provider.check(signal);
    return [
      pass(`${name}: ${provider.name === 'searxng' ? 'the instance answers' : 'key accepted'}`),
    ];
  } catch (error) {
    if (signal.aborted)
      return [fail(`${name}: no answer within ${Math.round(timeoutMs / 1000)} s`, SEARCH_FIX)];
    const message = error instanceof SearchError ? error.message : String(error);
    return [fail(`${name}: ${message}`, SEARCH_FIX)];
  }
}

const SEARCH_FIX =
  'Check WEB_SEARCH_PROVIDER and its key or URL (BRAVE_API_KEY, TAVILY_API_KEY, SEARXNG_URL) and WEB_SEARCH_BASE_URL in .env.';
