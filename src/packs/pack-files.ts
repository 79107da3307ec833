import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PackProblem } from './problems.ts';

/**
 * A pack's files are read only through its own folder: a symbolic link in it that leads
 * outside (SOUL.md → ~/.ssh/id_rsa, skills/x → /home/me) would put a stranger's file in
 * the system prompt. The pack's folder itself may be a link (pack test links it in place).
 */

/** The problem a file reached through a link that leaves the pack is reported as. */
export const OUTSIDE_LINK =
  'is a link that leads outside the pack folder; satchel does not read it';

/** Whether `file`, links resolved, is inside the pack folder `dir` (links resolved too). */
export function insidePack(dir: string, file: string): boolean {
  try {
    const root = realpathSync(dir);
    const real = realpathSync(file);
    return real === root || real.startsWith(root + path.sep);
  } catch {
    // A dangling link leads nowhere satchel can read.
    return false;
  }
}

/**
 * The text of `file` in the pack at `dir`: undefined when it does not exist, and when it
 * leads outside the pack (the problem is added to `problems`; nothing is read).
 */
export function readPackFile(
  dir: string,
  file: string,
  problems: PackProblem[],
): string | undefined {
  if (!existsSync(file)) {
    if (isLink(file)) problems.push({ file, field: '(file)', problem: OUTSIDE_LINK });
    return undefined;
  }
  if (!insidePack(dir, file)) {
    problems.push({ file, field: '(file)', problem: OUTSIDE_LINK });
    return undefined;
  }
  return readFileSync(file, 'utf8');
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A link found in a pack folder that `pack add` will not copy, and why. */
export interface RefusedLink {
  /** The link, relative to the pack folder. */
  link: string;
  reason: 'outside' | 'folder';
}

/**
 * The first link in the pack at `dir` that `pack add` must refuse: one that leads outside
 * the pack (or nowhere), or to a folder (a copy would follow it, perhaps round in a loop).
 * Links to files inside the pack are fine: they are copied as the files they name. Folders
 * named in `skip` at the top (`.git`, `node_modules`) are not part of the pack.
 */
export function refusedLink(dir: string, skip: ReadonlySet<string>): RefusedLink | undefined {
  const walk = (folder: string): RefusedLink | undefined => {
    for (const entry of readdirSync(folder).sort()) {
      if (folder === dir && skip.has(entry)) continue;
      const file = path.join(folder, entry);
      const stat = lstatSync(file);
      const link = path.relative(dir, file);
      if (stat.isSymbolicLink()) {
        if (!insidePack(dir, file)) return { link, reason: 'outside' };
        if (statSync(file).isDirectory()) return { link, reason: 'folder' };
      } else if (stat.isDirectory()) {
        const found = walk(file);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(dir);
}
