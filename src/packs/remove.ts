import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PackInstallError } from './install.ts';
import { installedPacksDir } from './installed.ts';

/**
 * Removes an installed pack; with `purge`, its data under SATCHEL_HOME/packs/<name>/ too. A
 * pack found in one of `packDirs` (SATCHEL_PACKS) instead is refused with where it is.
 */
export function removePack(
  home: string,
  name: string,
  purge: boolean,
  packDirs: readonly string[] = [],
): { purged: boolean } {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name))
    throw new PackInstallError(`"${name}" is not a pack name.`);
  const target = path.join(installedPacksDir(home), name);
  if (!existsSync(target)) {
    const folder = packDirs.find((d) => existsSync(path.join(d, name, 'pack.yml')));
    if (folder !== undefined)
      throw new PackInstallError(
        `${name} was not installed with pack add: it is in ${path.join(folder, name)}, and satchel loads every pack in the SATCHEL_PACKS folders (${folder}). To stop using it, point SATCHEL_PACKS at a folder without it (copy the packs you keep into one).`,
      );
    throw new PackInstallError(`No pack named ${name} is installed in ${installedPacksDir(home)}.`);
  }
  rmSync(target, { recursive: true, force: true });
  const data = path.join(home, 'packs', name);
  const purged = purge && existsSync(data);
  if (purge) rmSync(data, { recursive: true, force: true });
  return { purged };
}
