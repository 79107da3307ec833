import { writeFileSync } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileSource } from '../core/ports.ts';
import { redactSecretShapes } from '../core/redact.ts';
import type { InboundEvent } from '../core/types.ts';
import { PRIVATE_FILE } from '../store/file-modes.ts';

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

/** The longest file name most file systems (ext4, APFS, NTFS) and tar readers take. */
export const MAX_NAME_BYTES = 255;
/** A longer "extension" is part of the name: it is cut like the rest. */
const MAX_EXT_BYTES = 16;

/**
 * Saves `data` in `dir` under the user's file name made safe (see `safeName`), never
 * overwriting a file: a taken name becomes `name (2).ext`, `name (3).ext`… Returns the name
 * it was saved under.
 */
export function saveUnique(dir: string, wanted: string, data: Buffer): string {
  for (const candidate of candidates(wanted)) {
    try {
      // 'wx' fails when the file exists, so two documents of one name never race.
      writeFileSync(path.join(dir, candidate), data, { flag: 'wx', mode: PRIVATE_FILE });
      return candidate;
    } catch (error) {
      if (!taken(error)) throw error;
    }
  }
  throw new Error('unreachable: the names never run out');
}

/**
 * `saveUnique` for a file read as a stream (a large one, never held whole): it is copied
 * into `dir` as it arrives; a copy that fails or is aborted leaves no partial file behind.
 */
export async function saveStreamUnique(
  dir: string,
  wanted: string,
  source: Readable,
  signal: AbortSignal,
): Promise<string> {
  for (const candidate of candidates(wanted)) {
    const target = path.join(dir, candidate);
    let handle: FileHandle;
    try {
      handle = await open(target, 'wx', PRIVATE_FILE);
    } catch (error) {
      if (taken(error)) continue;
      source.destroy();
      throw error;
    }
    try {
      await pipeline(source, handle.createWriteStream(), { signal });
      return candidate;
    } catch (error) {
      await rm(target, { force: true });
      throw error;
    }
  }
  throw new Error('unreachable: the names never run out');
}

const taken = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EEXIST';

/** The names a document may be saved under, in order: `name.ext`, `name (2).ext`… */
function* candidates(wanted: string): Generator<string> {
  const { name, ext } = splitExtension(safeName(wanted));
  for (let n = 1; ; n++) {
    const suffix = `${n === 1 ? '' : ` (${n})`}${ext}`;
    yield `${fitBytes(name, MAX_NAME_BYTES - bytes(suffix))}${suffix}`;
  }
}

type Voice = Extract<InboundEvent, { kind: 'voice' }>;

/**
 * Audio too big to hold in memory for transcription, from a source that streams large files
 * (a self-hosted Bot API server's): it is kept in the workspace as a document instead.
 */
export function audioKeptAsFile(
  event: Voice,
  files: FileSource | undefined,
): Extract<InboundEvent, { kind: 'document' }> | undefined {
  const size = event.file.size;
  if (!files?.stream || size === undefined || size <= files.maxBytes) return undefined;
  const { fileName, mimeType, durationSec: _, ...rest } = event;
  return {
    ...rest,
    kind: 'document',
    name: fileName ?? 'audio',
    mimeType: mimeType ?? 'audio/mpeg',
  };
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

/**
 * Characters removed from a saved name: controls (C0, DEL, C1), line and paragraph
 * separators, format characters (bidi overrides and isolates, zero-width ones, BOM), and
 * lone surrogates (no valid UTF-8). Each breaks some file system, archive, terminal or
 * listing, or makes a name look like another.
 */
const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * The user's file name made safe on every file system and in every archive: no
 * directories, none of UNSAFE_CHARACTERS, at most MAX_NAME_BYTES of UTF-8 (cut at a
 * character boundary, keeping the extension); `file` when nothing is left. A secret-shaped
 * part (a bot token, an API key) is `[redacted]` (SPEC §9: file names, listings and
 * backups hold it redacted; the conversation keeps the name as sent).
 */
export function safeName(wanted: string): string {
  const kept = path
    .basename(wanted.replaceAll('\\', '/'))
    .replace(UNSAFE_CHARACTERS, '')
    .replaceAll('/', '');
  // Redacted after the unsafe characters are gone, so a zero-width one cannot hide a token.
  const base = redactSecretShapes(kept).trim();
  const name = base === '' || base === '.' || base === '..' ? 'file' : base;
  const { name: stem, ext } = splitExtension(name);
  return `${fitBytes(stem, MAX_NAME_BYTES - bytes(ext))}${ext}`;
}

/** `name.ext` as its stem and `.ext`; a long or odd "extension" stays in the stem. */
function splitExtension(name: string): { name: string; ext: string } {
  const { name: stem, ext } = path.parse(name);
  return stem !== '' && ext.length > 1 && bytes(ext) <= MAX_EXT_BYTES && !/\s/.test(ext)
    ? { name: stem, ext }
    : { name, ext: '' };
}

/** The longest start of `text` of at most `max` bytes of UTF-8, cut between graphemes. */
function fitBytes(text: string, max: number): string {
  if (bytes(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter('und', { granularity: 'grapheme' }).segment(text)) {
    used += bytes(segment);
    if (used > max) break;
    out += segment;
  }
  return out.trimEnd() || 'file';
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
