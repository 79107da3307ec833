import { chmodSync, existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { type ModeChange, octal, PRIVATE_FILE, privateTree } from '../store/file-modes.ts';
import { type Check, fail, pass } from './check.ts';

/** At most this many paths are named under a finding; the count says how many in all. */
const SHOWN = 5;

/** `.env` (API keys, the bot token) readable by no one but its owner. */
export function checkEnvFile(envFile: string): Check {
  if (!existsSync(envFile)) return pass(`.env: none in ${path.dirname(envFile)}`);
  const mode = lstatSync(envFile).mode & 0o777;
  if ((mode & 0o077) === 0) return pass(`.env: readable by its owner only (${octal(mode)})`);
  return fail(
    `.env is open to other users (${octal(mode)}): they can read the bot token and API keys`,
    `Run \`chmod 600 ${envFile}\` (or \`npx satchel doctor --security --fix\`).`,
  );
}

/** SATCHEL_HOME and everything in it readable by no one but its owner. */
export function checkHomeModes(home: string): Check {
  if (!existsSync(home)) return pass(`SATCHEL_HOME: not created yet (${home})`);
  const open = privateTree(home, false);
  if (open.length === 0) return pass(`SATCHEL_HOME: readable by its owner only (${home})`);
  const folders = open.filter((c) => isFolder(c.path)).length;
  const shown = open.slice(0, SHOWN).map((c) => `${octal(c.from)}  ${c.path}`);
  if (open.length > SHOWN) shown.push(`… and ${open.length - SHOWN} more`);
  return fail(
    `SATCHEL_HOME is open to other users: ${open.length - folders} file(s) and ${folders} folder(s) (conversations, the ledger, pack data)`,
    `Run \`chmod -R go-rwx ${home}\` (or \`npx satchel doctor --security --fix\`).`,
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

/**
 * The safe fixes: `.env` made 0600, SATCHEL_HOME's folders 0700 and files 0600. Returns
 * what it changed, one line each, for the owner to read.
 */
export function fixModes(envFile: string, home: string): string[] {
  const changed: ModeChange[] = [];
  if (existsSync(envFile)) {
    const from = lstatSync(envFile).mode & 0o777;
    if ((from & 0o077) !== 0) {
      chmodSync(envFile, PRIVATE_FILE);
      changed.push({ path: envFile, from, to: PRIVATE_FILE });
    }
  }
  changed.push(...privateTree(home, true));
  return changed.map((c) => `${c.path}: ${octal(c.from)} → ${octal(c.to)}`);
}
