import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import {
  PROVIDER_NAMES,
  type Provider,
  type ProviderSettings,
  providerConfigured,
} from './registry.ts';

/** One model `/model` and the web chat's picker offer (SPEC §14). */
export interface OfferedModel {
  /** `provider:model`. */
  ref: string;
  /** USD per million input and output tokens, when the catalog prices it. */
  price?: { input: number; output: number };
}

/** How long a provider's list is kept before it is asked again. */
export const LIST_TTL_MS = 10 * 60_000;
/** How long asking a provider for its list may take before the catalog's list is used. */
const LIST_TIMEOUT_MS = 5_000;

export interface OfferedModelsDeps {
  config: ProviderSettings;
  catalog: ModelCatalog;
  /** The provider's model list (its model-list endpoint: probe.ts `listModels`). */
  list(provider: Provider, signal: AbortSignal): Promise<string[]>;
  clock: Clock;
  log: Logger;
}

/**
 * The chat models the configured providers offer (SPEC §14): each provider's own model
 * list, asked at most every LIST_TTL_MS (the catalog's chat models of that provider when the
 * list cannot be read), without the models the catalog knows are not chat models (speech,
 * transcription, search). Priced models first, then the unpriced; each group by name.
 */
export function createOfferedModels(deps: OfferedModelsDeps) {
  const { catalog } = deps;
  const kept = new Map<Provider, { at: number; names: readonly string[] }>();
  const configured = PROVIDER_NAMES.filter((p) => providerConfigured(deps.config, p));

  const fromCatalog = (provider: Provider) =>
    catalog
      .chatModels()
      .filter((e) => e.provider === provider)
      .map((e) => e.model);

  /** Whether the catalog says `model` is something else than a chat model. */
  function notChat(provider: Provider, model: string): boolean {
    const entry = catalog.lookup(provider, model);
    if (!entry) return false;
    return (
      entry.audioPerHour !== undefined ||
      entry.perCall !== undefined ||
      entry.ttsPerMillionChars !== undefined
    );
  }

  async function namesOf(provider: Provider, signal?: AbortSignal): Promise<readonly string[]> {
    const now = deps.clock.now();
    const cached = kept.get(provider);
    if (cached && now - cached.at < LIST_TTL_MS) return cached.names;
    const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS);
    try {
      const names = await deps.list(
        provider,
        signal ? AbortSignal.any([signal, timeout]) : timeout,
      );
      kept.set(provider, { at: now, names });
      return names;
    } catch (error) {
      deps.log.warn(
        { event: 'model_list_failed', provider, reason: (error as Error).message },
        "the provider's model list could not be read; offering the catalog's models",
      );
      return cached?.names ?? fromCatalog(provider);
    }
  }

  function offer(provider: Provider, model: string): OfferedModel {
    const tokens = catalog.lookup(provider, model)?.tokens;
    const ref = `${provider}:${model}`;
    return tokens ? { ref, price: { input: tokens.input, output: tokens.output } } : { ref };
  }

  /** The offered models now known, from the lists read last (the catalog's before any). */
  function known(): OfferedModel[] {
    return sorted(
      configured.flatMap((p) =>
        (kept.get(p)?.names ?? fromCatalog(p))
          .filter((m) => !notChat(p, m))
          .map((m) => offer(p, m)),
      ),
    );
  }

  return {
    /** The offered models, each provider's list read again when older than LIST_TTL_MS. */
    async offered(signal?: AbortSignal): Promise<OfferedModel[]> {
      await Promise.all(configured.map((p) => namesOf(p, signal)));
      return known();
    },
    known,
  };
}

export type OfferedModels = ReturnType<typeof createOfferedModels>;

function sorted(models: OfferedModel[]): OfferedModel[] {
  const unique = [...new Map(models.map((m) => [m.ref, m])).values()];
  return unique.sort(
    (a, b) =>
      Number(a.price === undefined) - Number(b.price === undefined) || a.ref.localeCompare(b.ref),
  );
}
