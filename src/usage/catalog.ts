import { BUNDLED_MODELS, type ModelEntry } from './models.ts';

export type { ModelEntry, TokenPrice } from './models.ts';

/** What a paid call is, for its price: tokens (chat, vision), audio (stt) or a call (search). */
export type PricedKind = 'llm' | 'vision' | 'stt' | 'search' | 'tts';

/** One entry of the effective catalog and where it came from. */
export interface CatalogEntry {
  provider: string;
  model: string;
  entry: ModelEntry;
  /** `bundled`, or the owner's catalog file that added or changed it. */
  source: string;
}

/** The owner's entries (SATCHEL_MODELS), already validated, and the file they came from. */
export interface OwnerCatalog {
  file: string;
  entries: Readonly<Record<string, Partial<ModelEntry>>>;
}

/**
 * The effective model catalog: the bundled entries (models.ts), with the owner's file on top
 * (an owner entry changes only the fields it names). Built once at the root and passed to
 * whatever prices a call or decides on images: the ledger, the quota gate, the chat models,
 * `/model`, `satchel models` and the doctor.
 */
export function createModelCatalog(owner: OwnerCatalog) {
  const merged = new Map<string, CatalogEntry>();
  for (const [key, entry] of Object.entries(BUNDLED_MODELS))
    merged.set(key, { ...splitKey(key), entry, source: 'bundled' });
  for (const [key, fields] of Object.entries(owner.entries)) {
    const base = merged.get(key)?.entry;
    const entry = mergeEntry(base, fields);
    merged.set(key, { ...splitKey(key), entry, source: owner.file });
  }

  const lookup = (provider: string, model: string): ModelEntry | undefined =>
    merged.get(`${provider}:${model}`)?.entry;

  return {
    /** The owner's catalog file (named in messages about a missing price). */
    file: owner.file,
    lookup,
    /** Whether the model takes images inline; a model missing here is text-only. */
    acceptsImages: (provider: string, model: string) => lookup(provider, model)?.images ?? false,
    /** Whether a call of `kind` on this model has a known price. */
    priced(provider: string, model: string, kind: PricedKind): boolean {
      const entry = lookup(provider, model);
      if (kind === 'stt') return entry?.audioPerHour !== undefined;
      if (kind === 'search') return entry?.perCall !== undefined;
      if (kind === 'tts') return entry?.ttsPerMillionChars !== undefined;
      return entry?.tokens !== undefined;
    },
    /** Every entry, sorted by provider and model. */
    entries: (): CatalogEntry[] =>
      [...merged.values()].sort(
        (a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model),
      ),
    /** The entries that are chat models: not speech-to-text, search or text-to-speech. */
    chatModels(): CatalogEntry[] {
      return this.entries().filter(
        (e) =>
          e.entry.audioPerHour === undefined &&
          e.entry.perCall === undefined &&
          e.entry.ttsPerMillionChars === undefined,
      );
    },
  };
}

export type ModelCatalog = ReturnType<typeof createModelCatalog>;

/** The catalog with the bundled entries alone (tests, tools that read no owner file). */
export const bundledCatalog = (file = 'models.yaml'): ModelCatalog =>
  createModelCatalog({ file, entries: {} });

/** `provider:model`; the model may hold colons of its own (`llava:13b`). */
function splitKey(key: string): { provider: string; model: string } {
  const at = key.indexOf(':');
  return { provider: key.slice(0, at), model: key.slice(at + 1) };
}

function mergeEntry(base: ModelEntry | undefined, fields: Partial<ModelEntry>): ModelEntry {
  const entry: ModelEntry = { images: fields.images ?? base?.images ?? false };
  const tokens = fields.tokens ?? base?.tokens;
  const audioPerHour = fields.audioPerHour ?? base?.audioPerHour;
  const perCall = fields.perCall ?? base?.perCall;
  const tts = fields.ttsPerMillionChars ?? base?.ttsPerMillionChars;
  const context = fields.context ?? base?.context;
  if (tokens) entry.tokens = tokens;
  if (audioPerHour !== undefined) entry.audioPerHour = audioPerHour;
  if (perCall !== undefined) entry.perCall = perCall;
  if (tts !== undefined) entry.ttsPerMillionChars = tts;
  if (context !== undefined) entry.context = context;
  return entry;
}
