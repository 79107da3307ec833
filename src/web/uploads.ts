import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Where the web chat keeps files, under SATCHEL_HOME. */
const UPLOADS_DIR = path.join('media', 'web');

const FILE_NAME = String.raw`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[a-z0-9]{1,8}`;
/**
 * An upload's id: its conversation's id, `_`, and a random name with the extension its type
 * gave it (no path in it). It is kept as `<conversation>/<name>`.
 */
const UPLOAD_ID = new RegExp(`^(w-[A-Za-z0-9-]{1,64})_(${FILE_NAME})$`);
/** A file of no conversation's: a spoken answer, or an upload of an earlier version. */
const LOOSE_ID = new RegExp(`^${FILE_NAME}$`);
/** A conversation's folder (`w-` and its id). */
const CONVERSATION_DIR = /^w-[A-Za-z0-9-]{1,64}$/;

/** Image types a page may show as a thumbnail, by the extension an upload of them gets. */
const IMAGE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

/** Voice notes the page plays: satchel's spoken answers (Ogg/Opus). */
const VOICE_TYPES: Record<string, string> = { '.ogg': 'audio/ogg' };

/** Whether an upload is a picture: the page shows it and the history names where it is kept. */
export const isPictureUpload = (id: string) => path.extname(id) in IMAGE_TYPES;

export interface UploadStore extends FileSource {
  /** Keeps a voice note (a spoken answer) under a new id ending in `ext`; returns the id. */
  save(data: Buffer, ext: string): string;
  /** Keeps a file the owner sent in `conversation`, ending in `ext` (`.jpg`…); returns its id. */
  keep(conversation: string, data: Buffer, ext: string): string;
  /** A kept file's size in bytes; undefined when there is none. */
  size(id: string): number | undefined;
  /** An uploaded picture's bytes and type (for the page's thumbnail), or undefined. */
  image(id: string): { body: Buffer; type: string } | undefined;
  /** A kept voice note's bytes and type (the page plays it), or undefined. */
  voice(id: string): { body: Buffer; type: string } | undefined;
  /**
   * The turn that took these uploads answered: each that is not a picture is removed (the
   * pack's workspace keeps a document, the transcript a recording); a picture stays, shown
   * in its bubble and named by the history, until its conversation goes.
   */
  settle(ids: readonly string[]): void;
  /** Removes every upload of `conversation`; returns how many there were. */
  forget(conversation: string): number;
  /** Removes the uploads of every conversation `exists` does not know; returns how many. */
  sweep(exists: (conversation: string) => boolean): number;
}

/**
 * What the owner sends from the browser, kept once (SPEC §16), by conversation, in
 * SATCHEL_HOME/media/web/<conversation>/ (owner-only): the web edge's FileSource. The id
 * names the conversation and the file, so a stored event that names it is answered after a
 * restart too, and the conversation can show a sent picture again after a reload. A picture
 * is the one copy the pipeline refers to (`keptAs`: it keeps no other); anything else is
 * removed once its turn answered (`settle`). Downloading checks the size first and refuses
 * past `maxBytes` with FileTooLargeError, as Telegram's source does.
 */
export function createUploadStore(home: string): UploadStore {
  const dir = path.join(home, UPLOADS_DIR);

  /** Where id's file is, relative to `dir`; undefined when the id is not one of ours. */
  function placeOf(id: string): string | undefined {
    const found = UPLOAD_ID.exec(id);
    if (found) return path.join(found[1]!, found[2]!);
    return LOOSE_ID.test(id) ? id : undefined;
  }
  const fileOf = (id: string) => {
    const place = placeOf(id);
    return place === undefined ? undefined : path.join(dir, place);
  };

  /** A kept file the page may show, when its extension is one of `types`. */
  function shown(id: string, types: Record<string, string>) {
    const type = types[path.extname(id)];
    const file = fileOf(id);
    if (!type || !file || sizeOf(file) === undefined) return undefined;
    return { body: readFileSync(file), type };
  }

  function write(folder: string, data: Buffer, ext: string): string {
    makePrivateDir(folder);
    const name = `${randomUUID()}${ext}`;
    writeFileSync(path.join(folder, name), data, { mode: PRIVATE_FILE, flag: 'wx' });
    return name;
  }

  function forget(conversation: string): number {
    if (!CONVERSATION_DIR.test(conversation)) return 0;
    const folder = path.join(dir, conversation);
    const count = listed(folder).length;
    rmSync(folder, { recursive: true, force: true });
    return count;
  }

  return {
    maxBytes: MAX_UPLOAD_BYTES,

    save: (data, ext) => write(dir, data, ext),

    keep(conversation, data, ext) {
      // An id no folder may be named after (none that satchel makes) keeps it loose instead.
      if (!CONVERSATION_DIR.test(conversation)) return write(dir, data, ext);
      makePrivateDir(dir);
      return `${conversation}_${write(path.join(dir, conversation), data, ext)}`;
    },

    size: (id) => {
      const file = fileOf(id);
      return file ? sizeOf(file) : undefined;
    },

    async download(fileId, { maxBytes, signal }): Promise<DownloadedFile> {
      signal.throwIfAborted();
      const place = placeOf(fileId);
      const file = place === undefined ? undefined : path.join(dir, place);
      const size = file ? sizeOf(file) : undefined;
      if (size === undefined) throw new MediaError(`no upload ${fileId}`, UPLOAD_GONE);
      if (size > maxBytes) throw new FileTooLargeError(size, maxBytes);
      const data = readFileSync(file!);
      // A picture of a conversation is kept here as long as the conversation: the only copy.
      const kept = UPLOAD_ID.test(fileId) && isPictureUpload(fileId);
      return {
        data,
        remotePath: fileId,
        ...(kept ? { keptAs: path.join(UPLOADS_DIR, place!).split(path.sep).join('/') } : {}),
      };
    },

    image: (id) => shown(id, IMAGE_TYPES),
    voice: (id) => shown(id, VOICE_TYPES),

    settle(ids) {
      for (const id of ids) {
        const file = UPLOAD_ID.test(id) && !isPictureUpload(id) ? fileOf(id) : undefined;
        if (file) rmSync(file, { force: true });
      }
    },

    forget,

    sweep(exists) {
      let count = 0;
      for (const name of listed(dir))
        if (CONVERSATION_DIR.test(name) && !exists(name)) count += forget(name);
      return count;
    },
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

/** The names in `folder`; none when it does not exist. */
function listed(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
