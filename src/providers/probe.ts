import { ProviderError } from '../core/errors.ts';
import { PROVIDER_CLIENTS } from './clients.ts';
import type { Provider, ProviderKeys } from './registry.ts';

/**
 * Asks `provider` for its model list with the configured key and base URL: the cheapest
 * request that proves both (it costs no tokens). Resolves with the model names; rejects
 * with a ProviderError (a refused key names its variable, an unreachable host is transient)
 * or an abort when `signal` fires.
 */
export async function listModels(
  config: { providers: ProviderKeys },
  provider: Provider,
  signal: AbortSignal,
): Promise<string[]> {
  const clients = PROVIDER_CLIENTS[provider];
  try {
    return await clients.listModels(config.providers[provider], signal);
  } catch (error) {
    const mapped = clients.mapError(error, signal);
    if (mapped instanceof ProviderError || !(mapped instanceof Error)) throw mapped;
    // Anything else (a body the SDK could not read) still names the provider.
    throw new ProviderError(provider, `${provider}: ${mapped.message}`, {
      transient: false,
      cause: mapped,
    });
  }
}
