import { constants } from 'node:fs';
import { type FileHandle, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { MediaError } from '../core/errors.ts';

/** What a self-hosted Bot API server in `--local` mode hands over: files up to 2000 MB. */
export const LOCAL_FILE_LIMIT = 2000 * 1024 * 1024;

/** A local file, opened and checked; the caller closes `handle`. */
export interface LocalFile {
  handle: FileHandle;
  bytes: number;
  /** The path below the bot's directory (`documents/file_3.pdf`): it names no token. */
  remotePath: string;
}

/** Why a path was not read; the user is told this, never the path (it holds the token). */
export type LocalRefusal = 'relative' | 'outside' | 'missing' | 'not_a_file';

const REASONS: Record<LocalRefusal, string> = {
  relative:
    'gave a relative path, not one on its own disk (with TELEGRAM_LOCAL_FILES=true it must run with --local)',
  outside: 'gave a path outside its directory for this bot, so I did not read it',
  missing: 'gave a path where there is no file I can read',
  not_a_file:
    'gave a path that is not a regular file (a directory or a device), so I did not read it',
};

/** A path the Bot API server gave that satchel refuses to read. */
export class LocalFileRefused extends MediaError {
  readonly reason: LocalRefusal;

  // No cause is kept: a file system error quotes the path, and the path holds the token.
  constructor(reason: LocalRefusal) {
    super(
      `local file refused: ${reason}`,
      `I could not take that file: the Bot API server ${REASONS[reason]}. Nothing was copied.`,
    );
    this.reason = reason;
  }
}

/**
 * Opens a file the self-hosted Bot API server named by its absolute `filePath` (getFile in
 * `--local` mode). Such a server keeps a bot's files under `<its --dir>/<bot token>/`, so
 * that directory is the only one read from: the path must be absolute, name the token as a
 * whole component, hold no `.` or `..`, that directory must not itself be a link (its real
 * path is its real parent's, joined with the token), and the file's real path (symlinks
 * resolved) must lie inside it. The file is then opened without following a final
 * symlink and without blocking (a FIFO), and must be a regular file.
 *
 * Promises: nothing outside the bot's directory is opened; a refusal is a LocalFileRefused
 * whose messages never hold the path or the token.
 */
export async function openLocalFile(filePath: string, token: string): Promise<LocalFile> {
  if (!path.isAbsolute(filePath)) throw new LocalFileRefused('relative');
  const segments = filePath.split('/');
  const at = segments.indexOf(token);
  if (at < 1 || segments.some((s) => s === '.' || s === '..'))
    throw new LocalFileRefused('outside');
  const remotePath = segments.slice(at + 1).join('/');
  let real: string;
  let root: string;
  let parent: string;
  try {
    parent = await realpath(segments.slice(0, at).join('/') || '/');
    root = await realpath(segments.slice(0, at + 1).join('/'));
    real = await realpath(filePath);
  } catch {
    throw new LocalFileRefused('missing');
  }
  // The token's folder itself must be a folder where it stands, not a link elsewhere (to
  // /etc): the server makes it, so a link there was put by someone else.
  if (root !== path.join(parent, token)) throw new LocalFileRefused('outside');
  if (!real.startsWith(`${root}${path.sep}`)) throw new LocalFileRefused('outside');
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new LocalFileRefused('missing');
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new LocalFileRefused('not_a_file');
  }
  return { handle, bytes: stat.size, remotePath };
}
