import {
  accessSync,
  constants,
  linkSync,
  lstatSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { SetupFailed } from './ui.ts';

/** Characters a `.env` value may hold unquoted (Node's parser would cut at `#` or a quote). */
const PLAIN = /^[\w.:/@%+,=~-]*$/;

/**
 * The text of the `.env` setup writes: a header, then `NAME=value` lines in the given order.
 * A value with other characters is single-quoted (Node's `.env` parser keeps it as is).
 */
export function envText(variables: ReadonlyArray<readonly [string, string]>): string {
  const lines = variables.map(([name, value]) => envLine(name, value));
  return [
    '# Written by `npx satchel setup`. Every other variable, with what it does: .env.example',
    ...lines,
    '',
  ].join('\n');
}

/** One `NAME=value` line; a value with other characters than PLAIN's is single-quoted. */
export const envLine = (name: string, value: string): string =>
  PLAIN.test(value) ? `${name}=${value}` : `${name}='${value}'`;

/** A value setup cannot write on one line (a newline or a single quote in a pasted key). */
export const unwritable = (value: string): boolean => /[\r\n']/.test(value);

/**
 * Writes `text` to `file`, readable by its owner only (0600, also under a loose umask). A
 * new file is linked into place only if the name is still free, so a file that appeared
 * meanwhile is never replaced; with `replace`, the new text takes the old file's place in
 * one step (the caller kept a copy of the old one first, env-backup.ts).
 */
export function writeEnvFile(given: string, text: string, replace: boolean): void {
  // A `.env` that is a link is updated where it leads: the link stays.
  const file = replace ? realpathSync(given) : given;
  const temp = `${file}.setup-${process.pid}`;
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  try {
    if (replace) renameSync(temp, file);
    else linkSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Why `file` cannot be written, found before anything is asked or checked (so no answer is
 * given for nothing): its folder is missing, not a folder or not writable, or the name is a
 * folder or a link that leads nowhere. `name` is how the person wrote it. Undefined: it can.
 */
export function unwritableTarget(file: string, name: string): SetupFailed | undefined {
  const own = lstatSync(file, { throwIfNoEntry: false });
  if (own?.isSymbolicLink() && !statSync(file, { throwIfNoEntry: false }))
    return new SetupFailed(
      `${name} is a link to ${readlinkSync(file)}, which does not exist, and setup writes no file through a link`,
      'Remove the link, or give --out another file.',
    );
  if (own && statSync(file, { throwIfNoEntry: false })?.isDirectory())
    return new SetupFailed(`${name} is a folder, not a file`, 'Give --out a file name.');
  const folder = path.dirname(file);
  const dir = statSync(folder, { throwIfNoEntry: false });
  if (!dir)
    return new SetupFailed(
      `the folder ${folder} does not exist, so ${name} cannot be written there`,
      `Create it first (mkdir -p ${folder}), or give --out a file in a folder that exists.`,
    );
  if (!dir.isDirectory())
    return new SetupFailed(
      `${folder} is not a folder, so ${name} cannot be written in it`,
      'Give --out a file in a folder.',
    );
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    return new SetupFailed(
      `you may not write in ${folder}, so ${name} cannot be written there`,
      'Give --out a file in a folder of yours.',
    );
  }
  return undefined;
}
