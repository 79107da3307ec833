import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import {
  chmodHere,
  type ModeChange,
  octal,
  PRIVATE_FILE,
  privateTree,
} from '../store/file-modes.ts';
import { type Check, fail, pass, warn } from './check.ts';

/** At most this many paths are named under a finding; the count says how many in all. */
const SHOWN = 5;

/**
 * SATCHEL_HOME as it lies on disk: a home that is itself a link (to another disk, say) is
 * the owner's choice of where it lives, so it is followed, once, at the top; links inside
 * it never are. Undefined when it does not exist yet.
 */
export function realHome(home: string): string | undefined {
  try {
    return realpathSync(home);
  } catch {
    return undefined;
  }
}

/** "SATCHEL_HOME (a link to /srv/satchel)", or "SATCHEL_HOME" when it is no link. */
const homeName = (home: string, real: string) =>
  lstatSync(home).isSymbolicLink() ? `SATCHEL_HOME (a link to ${real})` : 'SATCHEL_HOME';

/**
 * What `.env` is on disk, never confused with a link to it: its own file, a link to `target`
 * (`stat` is the target's, when it exists), or nothing.
 */
type EnvFile =
  | { kind: 'none' }
  | { kind: 'file'; stat: Stats }
  | { kind: 'link'; target: string; stat: Stats | undefined };

function envFileOf(envFile: string): EnvFile {
  const own = lstatSync(envFile, { throwIfNoEntry: false });
  if (!own) return { kind: 'none' };
  if (!own.isSymbolicLink()) return { kind: 'file', stat: own };
  return {
    kind: 'link',
    target: realTarget(envFile),
    stat: statSync(envFile, { throwIfNoEntry: false }),
  };
}

/** Where a link leads in the end; where it points when that does not exist. */
function realTarget(link: string): string {
  try {
    return realpathSync(link);
  } catch {
    return path.resolve(path.dirname(link), readlinkSync(link));
  }
}

const inside = (file: string, dir: string | undefined) =>
  dir !== undefined && file.startsWith(`${dir}${path.sep}`);

/**
 * `.env` (API keys, the bot token) readable by no one but its owner. A `.env` that is a link
 * is judged by the file it leads to (its mode, named), never by the link's own 0777.
 */
export function checkEnvFile(envFile: string): Check {
  const env = envFileOf(envFile);
  if (env.kind === 'none') return pass(`.env: none in ${path.dirname(envFile)}`);
  if (env.kind === 'link' && !env.stat)
    return warn(
      `.env is a link to ${env.target}, which does not exist: npm start reads no settings from it`,
      `Remove the link, or put the file it names back (\`npx satchel setup\` writes one).`,
    );
  const stat = env.stat as Stats;
  const mode = stat.mode & 0o777;
  const what = env.kind === 'link' ? `.env (a link to ${env.target})` : '.env';
  const file = env.kind === 'link' ? env.target : envFile;
  if ((mode & 0o077) === 0) return pass(`${what}: readable by its owner only (${octal(mode)})`);
  return fail(
    `${what} is open to other users (${octal(mode)}): they can read the bot token and API keys`,
    `Run \`chmod 600 ${file}\` (or \`npx satchel doctor --security --fix\`${env.kind === 'link' ? ' when the file is in SATCHEL_HOME' : ''}).`,
  );
}

/** SATCHEL_HOME and everything in it (a home that is a link: where it leads) its owner's only. */
export function checkHomeModes(home: string): Check {
  const real = realHome(home);
  if (real === undefined) return pass(`SATCHEL_HOME: not created yet (${home})`);
  const name = homeName(home, real);
  const open = privateTree(real, false);
  if (open.length === 0) return pass(`${name}: readable by its owner only (${home})`);
  const folders = open.filter((c) => isFolder(c.path)).length;
  const shown = open.slice(0, SHOWN).map((c) => `${octal(c.from)}  ${c.path}`);
  if (open.length > SHOWN) shown.push(`… and ${open.length - SHOWN} more`);
  return fail(
    `${name} is open to other users: ${open.length - folders} file(s) and ${folders} folder(s) (conversations, the ledger, pack data)`,
    `Run \`chmod -R go-rwx ${real}\` (or \`npx satchel doctor --security --fix\`).`,
    shown,
  );
}

function isFolder(file: string): boolean {
  try {
    return lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** What `--fix` did: the modes it changed, and what it left for the owner, with why. */
export interface ModeFixes {
  fixed: string[];
  left: string[];
}

/**
 * The safe fixes: `.env` made 0600, SATCHEL_HOME's folders 0700 and files 0600, each
 * changed by its descriptor, never through a link. A `.env` that is a link is left to its
 * owner unless it leads into SATCHEL_HOME (whose walk fixes it); a file with other names (a
 * hard link, in SATCHEL_HOME or as `.env`) is left too: its other name would change with it.
 */
export function fixModes(envFile: string, home: string): ModeFixes {
  const real = realHome(home);
  const left: string[] = [];
  const changes: ModeChange[] = [];
  const env = envFileOf(envFile);
  if (env.kind === 'file' && (env.stat.mode & 0o077) !== 0) {
    const from = env.stat.mode & 0o777;
    if (env.stat.nlink > 1) left.push(hardLinked(envFile, from, env.stat.nlink));
    else if (chmodHere(envFile, PRIVATE_FILE, env.stat))
      changes.push({ path: envFile, from, to: PRIVATE_FILE });
  }
  if (env.kind === 'link' && env.stat && (env.stat.mode & 0o077) !== 0 && !inside(env.target, real))
    left.push(
      `${envFile}: a link to ${env.target}, outside SATCHEL_HOME: left as it is (run \`chmod 600 ${env.target}\` if nothing else needs to read it)`,
    );
  if (real !== undefined)
    for (const change of privateTree(real, true))
      if (change.linked) left.push(hardLinked(change.path, change.from));
      else changes.push(change);
  return { fixed: changes.map((c) => `${c.path}: ${octal(c.from)} → ${octal(c.to)}`), left };
}

function hardLinked(file: string, from: number, names?: number): string {
  const count = names ?? lstatSync(file).nlink;
  return `${file}: ${octal(from)}, left as it is: the file has ${count} names (hard links), and its other names would change too (remove them, or run \`chmod 600 ${file}\` yourself)`;
}
