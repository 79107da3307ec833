import { existsSync } from 'node:fs';
import path from 'node:path';
import { homeFolders, homeKey, homeLabel } from '../core/home.ts';
import type { Pack } from '../packs/loader.ts';
import { upgradeDatabase } from '../packs/migrations.ts';
import { PackError } from '../packs/problems.ts';
import { homesIn } from '../packs/registry.ts';
import { Database } from '../store/sqlite.ts';
import { type Check, fail, pass } from './check.ts';

/**
 * The packs' homes (SPEC §19): how many there are (the owner's, and the people's and groups'
 * that exist), and each one whose database the pack's schema and migrations would fail on,
 * named with why, since at start only that home is refused. Each is tried on a copy in
 * memory: doctor writes nothing.
 */
export function checkHomes(satchelHome: string, packs: readonly Pack[]): Check[] {
  const homes = packs.map((pack) => ({ pack, homes: homesIn(packDir(satchelHome, pack)) }));
  const all = homes.flatMap((p) => p.homes);
  const people = all.filter((x) => x.kind === 'person').length;
  const groups = all.filter((x) => x.kind === 'group').length;
  const checks = [
    pass(`homes: the owner's in each pack, ${people} of people and ${groups} of groups`),
  ];
  for (const { pack, homes: theirs } of homes)
    for (const home of theirs) {
      const problem = upgradeProblem(
        path.join(packDir(satchelHome, pack), ...homeFolders(home)),
        pack,
      );
      if (problem)
        checks.push(
          fail(
            `pack ${pack.name}: ${homeLabel(home)} (${homeKey(home)}) cannot be brought up to date; its conversations are refused`,
            'Correct its pack.db (or the failing migration) so the step below applies, or remove that home with /people purge.',
            problem.split('\n'),
          ),
        );
    }
  return checks;
}

const packDir = (satchelHome: string, pack: Pack) => path.join(satchelHome, 'packs', pack.name);

/** What the pack's schema and migrations fail with on a copy of the home's database, if any. */
function upgradeProblem(dir: string, pack: Pack): string | undefined {
  const file = path.join(dir, 'pack.db');
  if (!existsSync(file)) return undefined;
  const disk = new Database(file, { readonly: true, fileMustExist: true });
  let copy: Database | undefined;
  try {
    copy = new Database(disk.serialize());
    upgradeDatabase(copy, pack);
    return undefined;
  } catch (error) {
    if (error instanceof PackError) return error.message;
    return `${file}: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    copy?.close();
    disk.close();
  }
}
