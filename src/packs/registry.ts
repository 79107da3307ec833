import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SatchelError } from '../core/errors.ts';
import {
  type Home,
  homeFolders,
  homeKey,
  homeLabel,
  idOfFolder,
  OWNER_HOME,
} from '../core/home.ts';
import type { Pack } from './loader.ts';
import { PackError } from './problems.ts';
import { openPackStorage, type PackStorage } from './storage.ts';

export interface PackRegistryOptions {
  /**
   * A pack whose storage could not be opened (its schema.sql or a migration failed on its
   * database): it is left out, and this hears why (the file and SQLite's error).
   */
  onSkipped?: (pack: Pack, error: PackError) => void;
  /**
   * Another home of a pack (a person's, a group's) whose database could not be brought up to
   * date: only that home is refused, and this hears which and why.
   */
  onHomeRefused?: (pack: Pack, home: Home, error: PackError) => void;
  /** How many storages of other homes stay open when nobody holds them (OPEN_HOMES). */
  openHomes?: number;
}

/**
 * Other homes' storages kept open at once, besides the owner's. Each open one is a SQLite
 * connection (three files, a page cache: about 0.25 MB); a bot with a thousand people must
 * not hold a thousand. One closed is opened again on its home's next turn (a few ms).
 */
export const OPEN_HOMES = 32;

/** A home of a pack could not be brought up to date: its conversations are refused. */
export class HomeRefusedError extends SatchelError {
  constructor(pack: Pack, home: Home, cause: PackError) {
    super('pack_home_refused', `${pack.name}: ${homeLabel(home)} refused: ${cause.message}`, {
      cause,
      userMessage: `The ${pack.displayName} pack cannot open ${homeLabel(home)}: its database could not be brought up to date. The owner should run \`npx satchel doctor\`.`,
    });
  }
}

/**
 * The installed packs, and each one's storage per home (SPEC §19). The owner's home of every
 * pack is opened at start, and so is every other home that exists, each brought up to date
 * (a pack whose owner's home cannot be is skipped; another home that cannot be is refused,
 * named, and only it). A home met for the first time is made from the schema then. The
 * owner's storages stay open; of the others, those used last (OPEN_HOMES) and those a turn
 * holds.
 */
export function createPackRegistry(
  candidates: readonly Pack[],
  root: string,
  options: PackRegistryOptions = {},
) {
  /** Open storages, the one used longest ago first (a use moves a storage to the end). */
  const storages = new Map<string, PackStorage>();
  /** How many turns hold each storage now (`hold`): a held one is never closed. */
  const holds = new Map<string, number>();
  const refused = new Map<string, PackError>();
  const packs: Pack[] = [];
  const keyOf = (pack: string, home: Home) => `${pack}\0${homeKey(home)}`;
  const ownerKeys = new Set<string>();
  const openHomes = options.openHomes ?? OPEN_HOMES;

  /**
   * Closes the other homes' storages used longest ago, past `openHomes`: never one a turn
   * holds, nor `using` (the one just handed out).
   */
  function closeIdle(using?: string): void {
    let over = storages.size - ownerKeys.size - openHomes;
    for (const [key, storage] of storages) {
      if (over <= 0) return;
      if (ownerKeys.has(key) || key === using || (holds.get(key) ?? 0) > 0) continue;
      storage.close();
      storages.delete(key);
      over -= 1;
    }
  }

  function open(pack: Pack, home: Home): PackStorage {
    const key = keyOf(pack.name, home);
    const known = storages.get(key);
    if (known) {
      storages.delete(key);
      storages.set(key, known);
      return known;
    }
    try {
      const storage = openPackStorage(root, pack, {}, home);
      storages.set(key, storage);
      refused.delete(key);
      closeIdle(key);
      return storage;
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      if (!refused.has(key)) options.onHomeRefused?.(pack, home, error);
      refused.set(key, error);
      throw new HomeRefusedError(pack, home, error);
    }
  }

  for (const pack of candidates) {
    try {
      storages.set(keyOf(pack.name, OWNER_HOME), openPackStorage(root, pack));
      ownerKeys.add(keyOf(pack.name, OWNER_HOME));
      packs.push(pack);
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      options.onSkipped?.(pack, error);
      continue;
    }
    for (const home of homesIn(path.join(root, 'packs', pack.name)))
      try {
        open(pack, home);
      } catch (error) {
        if (!(error instanceof HomeRefusedError)) throw error;
      }
  }

  const find = (name: string) => packs.find((p) => p.name === name);

  /**
   * The pack's storage in `home` (the owner's by default), made on first use. Throws
   * HomeRefusedError when that home's database cannot be brought up to date.
   */
  function storageOf(name: string, home: Home = OWNER_HOME): PackStorage {
    const pack = find(name);
    if (!pack) throw new Error(`no storage for pack "${name}"`);
    return open(pack, home);
  }

  return {
    list: (): readonly Pack[] => packs,

    get: find,

    /** The pack whose name or display name equals `label`, ignoring case (topic names). */
    byLabel(label: string): Pack | undefined {
      const wanted = label.trim().toLowerCase();
      return packs.find(
        (p) => p.name.toLowerCase() === wanted || p.displayName.toLowerCase() === wanted,
      );
    },

    storage: storageOf,

    /**
     * The storage, kept open until `release` (a turn holds its home's for as long as it runs:
     * only the other homes' storages nobody holds are closed, past `openHomes`).
     */
    hold(name: string, home: Home = OWNER_HOME): { storage: PackStorage; release(): void } {
      const storage = storageOf(name, home);
      const key = keyOf(name, home);
      holds.set(key, (holds.get(key) ?? 0) + 1);
      let released = false;
      return {
        storage,
        release() {
          if (released) return;
          released = true;
          const left = (holds.get(key) ?? 1) - 1;
          if (left > 0) holds.set(key, left);
          else holds.delete(key);
          closeIdle();
        },
      };
    },

    /** Every home of every pack that exists now, and those refused (`doctor`, backups). */
    homes(): { pack: string; home: Home; refused?: string }[] {
      const all: { pack: string; home: Home; refused?: string }[] = [];
      for (const pack of packs)
        for (const home of [OWNER_HOME, ...homesIn(path.join(root, 'packs', pack.name))]) {
          const error = refused.get(keyOf(pack.name, home));
          all.push({ pack: pack.name, home, ...(error && { refused: error.message }) });
        }
      return all;
    },

    /**
     * Removes a person's or a group's home in every pack (`/people purge`): its storage closed,
     * its folders deleted. Returns how many packs had one. The owner's home is never removed.
     */
    removeHome(home: Home): number {
      if (home.kind === 'owner') return 0;
      let removed = 0;
      for (const pack of packs) {
        const key = keyOf(pack.name, home);
        storages.get(key)?.close();
        storages.delete(key);
        refused.delete(key);
        const dir = path.join(root, 'packs', pack.name, ...homeFolders(home));
        if (!existsSync(dir)) continue;
        rmSync(dir, { recursive: true, force: true });
        removed += 1;
      }
      return removed;
    },

    close(): void {
      for (const storage of storages.values()) storage.close();
    },
  };
}

export type PackRegistry = ReturnType<typeof createPackRegistry>;

/** The people's and groups' homes under a pack's folder, as they exist on disk. */
export function homesIn(packDir: string): Home[] {
  const homes: Home[] = [];
  for (const [folder, kind] of [
    ['people', 'person'],
    ['groups', 'group'],
  ] as const) {
    const dir = path.join(packDir, folder);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const id = idOfFolder(entry.name);
      homes.push(kind === 'person' ? { kind, person: id } : { kind, group: id });
    }
  }
  return homes.sort((a, b) => homeKey(a).localeCompare(homeKey(b)));
}
