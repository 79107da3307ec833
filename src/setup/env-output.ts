import { existsSync, linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** Characters a `.env` value may hold unquoted (Node's parser would cut at `#` or a quote). */
const PLAIN = /^[\w.:/@%+,=~-]*$/;

/**
 * The text of the `.env` setup writes: a header, then `NAME=value` lines in the given order.
 * A value with other characters is single-quoted (Node's `.env` parser keeps it as is).
 */
export function envText(variables: ReadonlyArray<readonly [string, string]>): string {
  const lines = variables.map(([name, value]) =>
    PLAIN.test(value) ? `${name}=${value}` : `${name}='${value}'`,
  );
  return [
    '# Written by `npx satchel setup`. Every other variable, with what it does: .env.example',
    ...lines,
    '',
  ].join('\n');
}

/** A value setup cannot write on one line (a newline or a single quote in a pasted key). */
export const unwritable = (value: string): boolean => /[\r\n']/.test(value);

/**
 * Writes `text` to `file`, readable by its owner only (0600, also under a loose umask). A
 * new file is linked into place only if the name is still free, so a file that appeared
 * meanwhile is never replaced; with `replace`, the old file is renamed to the first free
 * `<file>.bak[.N]` first and that name is returned.
 */
export function writeEnvFile(file: string, text: string, replace: boolean): string | undefined {
  const temp = `${file}.setup-${process.pid}`;
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  try {
    let backup: string | undefined;
    if (replace && existsSync(file)) {
      backup = freeName(`${file}.bak`);
      renameSync(file, backup);
    }
    linkSync(temp, file);
    return backup;
  } finally {
    rmSync(temp, { force: true });
  }
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let n = 2; ; n++) if (!existsSync(`${base}.${n}`)) return `${base}.${n}`;
}
