import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileTooLargeError, MediaError } from '../core/errors.ts';
import type { DownloadedFile, FileSource } from '../core/ports.ts';
import { makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';

/**
 * The largest file the web chat takes: the same as Telegram's (its Bot API lets a bot
 * download up to 20 MB), so a file is refused in the browser exactly when it would be there.
 */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** What the owner is told when a stored upload is gone (its file deleted under SATCHEL_HOME). */
export const UPLOAD_GONE = 'I could not find that file any more. Please send it again.';

/** An upload's id: a random name with the extension its type gave it (no path in it). */
const UPLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[a-z0-9]{1,8}$/;

/** Image types a page may show as a thumbnail, by the extension an upload of them gets. */
const IMAGE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

/** Voice notes the page plays: satchel's spoken answers (Ogg/Opus). */
const VOICE_TYPES: Record<string, string> = { '.ogg': 'audio/ogg' };

export interface UploadStore extends FileSource {
  /** Keeps `data` under a new id ending in `ext` (`.jpg`, `.webm`…); returns the id. */
  save(data: Buffer, ext: string): string;
  /** An uploaded picture's bytes and type (for the page's thumbnail), or undefined. */
  image(id: string): { body: Buffer; type: string } | undefined;
  /** A kept voice note's bytes and type (the page plays it), or undefined. */
  voice(id: string): { body: Buffer; type: string } | undefined;
}

/**
 * What the owner sends from the browser, kept as files in `dir` (SATCHEL_HOME/media/web,
 * owner-only) until the pipeline fetches them: the web edge's FileSource. The id is the
 * file's name, so a stored event that names it is answered after a restart too, and the
 * conversation can show a sent picture again after a reload. Downloading checks the size
 * first and refuses past `maxBytes` with FileTooLargeError, as Telegram's source does.
 */
export function createUploadStore(dir: string): UploadStore {
  const fileOf = (id: string) => (UPLOAD_ID.test(id) ? path.join(dir, id) : undefined);

  /** A kept file the page may show, when its extension is one of `types`. */
  function shown(id: string, types: Record<string, string>) {
    const type = types[path.extname(id)];
    const file = fileOf(id);
    if (!type || !file || sizeOf(file) === undefined) return undefined;
    return { body: readFileSync(file), type };
  }

  return {
    maxBytes: MAX_UPLOAD_BYTES,

    save(data, ext) {
      makePrivateDir(dir);
      const id = `${randomUUID()}${ext}`;
      writeFileSync(path.join(dir, id), data, { mode: PRIVATE_FILE, flag: 'wx' });
      return id;
    },

    async download(fileId, { maxBytes, signal }): Promise<DownloadedFile> {
      signal.throwIfAborted();
      const file = fileOf(fileId);
      const size = file ? sizeOf(file) : undefined;
      if (size === undefined) throw new MediaError(`no upload ${fileId}`, UPLOAD_GONE);
      if (size > maxBytes) throw new FileTooLargeError(size, maxBytes);
      return { data: readFileSync(file!), remotePath: fileId };
    },

    image: (id) => shown(id, IMAGE_TYPES),
    voice: (id) => shown(id, VOICE_TYPES),
  };
}

function sizeOf(file: string): number | undefined {
  try {
    const stat = statSync(file);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}
