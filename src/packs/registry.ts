import type { Pack } from './loader.ts';
import { PackError } from './problems.ts';
import { openPackStorage, type PackStorage } from './storage.ts';

export interface PackRegistryOptions {
  /**
   * A pack whose storage could not be opened (its schema.sql or a migration failed on its
   * database): it is left out, and this hears why (the file and SQLite's error).
   */
  onSkipped?: (pack: Pack, error: PackError) => void;
}

/**
 * The installed packs, and each one's storage, opened once at start. A pack whose database
 * cannot be brought up to date is skipped; the others serve.
 */
export function createPackRegistry(
  candidates: readonly Pack[],
  home: string,
  options: PackRegistryOptions = {},
) {
  const storages = new Map<string, PackStorage>();
  const packs: Pack[] = [];
  for (const pack of candidates) {
    try {
      storages.set(pack.name, openPackStorage(home, pack));
      packs.push(pack);
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      options.onSkipped?.(pack, error);
    }
  }

  return {
    list: (): readonly Pack[] => packs,

    get: (name: string): Pack | undefined => packs.find((p) => p.name === name),

    /** The pack whose name or display name equals `label`, ignoring case (topic names). */
    byLabel(label: string): Pack | undefined {
      const wanted = label.trim().toLowerCase();
      return packs.find(
        (p) => p.name.toLowerCase() === wanted || p.displayName.toLowerCase() === wanted,
      );
    },

    storage(name: string): PackStorage {
      const storage = storages.get(name);
      if (!storage) throw new Error(`no storage for pack "${name}"`);
      return storage;
    },

    close(): void {
      for (const storage of storages.values()) storage.close();
    },
  };
}

export type PackRegistry = ReturnType<typeof createPackRegistry>;
