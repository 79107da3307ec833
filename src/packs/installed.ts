import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where `satchel pack add` installs packs: always searched besides SATCHEL_PACKS. */
export function installedPacksDir(home: string): string {
  return path.join(home, 'installed-packs');
}

/** The file next to an installed pack's files that says where it came from. */
export const SOURCE_FILE = '.satchel-source.json';

/** Where an installed pack came from, as `pack add` recorded it (undefined when not recorded). */
export function installedSource(dir: string): string | undefined {
  try {
    const { from } = JSON.parse(readFileSync(path.join(dir, SOURCE_FILE), 'utf8')) as {
      from?: unknown;
    };
    return typeof from === 'string' ? from : undefined;
  } catch {
    return undefined;
  }
}
