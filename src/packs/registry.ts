import type { Pack } from './loader.ts';
import { openPackStorage, type PackStorage } from './storage.ts';

/** The installed packs, and each one's storage, opened once at start. */
export function createPackRegistry(packs: readonly Pack[], home: string) {
  const storages = new Map<string, PackStorage>(
    packs.map((pack) => [pack.name, openPackStorage(home, pack)]),
  );

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
