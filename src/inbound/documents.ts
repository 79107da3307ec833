import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** A text document up to this size is also given to the model inline. */
export const INLINE_TEXT_LIMIT = 100 * 1024;

const TEXT_TYPES = new Set([
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'text/csv',
  'text/tab-separated-values',
  'application/json',
]);
const TEXT_EXTENSIONS = new Set(['.txt', '.md', '.markdown', '.csv', '.tsv', '.json']);

/**
 * Saves `data` in `dir` under the user's file name made safe (no directories, no control
 * characters), never overwriting a file: a taken name becomes `name (2).ext`, `name (3).ext`…
 * Returns the name it was saved under.
 */
export function saveUnique(dir: string, wanted: string, data: Buffer): string {
  const { name, ext } = path.parse(safeName(wanted));
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${name}${ext}` : `${name} (${n})${ext}`;
    try {
      // 'wx' fails when the file exists, so two documents of one name never race.
      writeFileSync(path.join(dir, candidate), data, { flag: 'wx' });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The text of a small plain-text document (text, Markdown, CSV, JSON), or undefined. */
export function inlineText(name: string, mimeType: string, data: Buffer): string | undefined {
  if (data.length > INLINE_TEXT_LIMIT) return undefined;
  const textual = TEXT_TYPES.has(mimeType) || TEXT_EXTENSIONS.has(path.extname(name).toLowerCase());
  if (!textual) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined; // not UTF-8: binary after all
  }
}

function safeName(wanted: string): string {
  const base = path
    .basename(wanted.replaceAll('\\', '/'))
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    .replace(/[\u0000-\u001f\u007f/]/g, '')
    .trim();
  const name = base === '' || base === '.' || base === '..' ? 'file' : base;
  return name.length > 120 ? name.slice(name.length - 120) : name;
}
