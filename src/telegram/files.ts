import { Readable } from 'node:stream';
import { type Api, GrammyError } from 'grammy';
import { FileTooLargeError, MediaError } from '../core/errors.ts';
import type { DownloadedFile, FileSource, Logger } from '../core/ports.ts';
import { createRedactor } from '../core/redact.ts';
import { failureCause } from './errors.ts';
import { LOCAL_FILE_LIMIT, openLocalFile } from './local-files.ts';

/** The Bot API lets bots download files of up to 20 MB. */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

/** What the user is told when a file cannot be fetched (the cause is only logged). */
export const DOWNLOAD_FAILED =
  'I could not download that file from Telegram. Please send it again.';

export interface TelegramFileSourceDeps {
  api: Api;
  /** The Bot API root the files are served from, as for the client (no trailing slash). */
  apiRoot: string;
  token: string;
  log?: Logger;
  /**
   * TELEGRAM_LOCAL_FILES: the server is a self-hosted Bot API server in `--local` mode, whose
   * getFile names a path on its own disk (read there, see local-files.ts) instead of a download.
   */
  localFiles?: boolean;
}

/**
 * Files users send, fetched from the Bot API: `getFile`, then the bytes from
 * `<apiRoot>/file/bot<token>/<file_path>`.
 *
 * Promises: a file Telegram says is bigger than `maxBytes` is refused with
 * FileTooLargeError before a byte is fetched, and a body that grows past it is cut off
 * with the same error; any other failure is a MediaError whose message never holds the
 * token (the download URL carries it); an abort rejects with the signal's reason.
 */
export function createTelegramFileSource(deps: TelegramFileSourceDeps): FileSource {
  const { api, apiRoot, token, log } = deps;
  const redact = createRedactor([token]);
  const failed = (what: string, error?: unknown) =>
    new MediaError(redact(what), DOWNLOAD_FAILED, error);

  async function filePathOf(fileId: string, maxBytes: number, signal: AbortSignal) {
    let file: Awaited<ReturnType<Api['getFile']>>;
    try {
      file = await api.getFile(fileId, apiSignal(signal));
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // Over 20 MB, Telegram refuses getFile instead of naming the size: "just over" it is.
      if (error instanceof GrammyError && /file is too big/i.test(error.description))
        throw new FileTooLargeError(Math.max(maxBytes, TELEGRAM_DOWNLOAD_LIMIT) + 1, maxBytes);
      throw failed(`getFile failed: ${failureCause(error)}`, error);
    }
    if (file.file_size !== undefined && file.file_size > maxBytes)
      throw new FileTooLargeError(file.file_size, maxBytes);
    if (!file.file_path) throw failed('getFile gave no file_path (the file may have expired)');
    return file.file_path;
  }

  if (deps.localFiles) return localFileSource(filePathOf, token, log);
  return {
    maxBytes: TELEGRAM_DOWNLOAD_LIMIT,
    async download(fileId, { maxBytes, signal }): Promise<DownloadedFile> {
      signal.throwIfAborted();
      const remotePath = await filePathOf(fileId, maxBytes, signal);
      const url = `${apiRoot}/file/bot${token}/${remotePath}`;
      const data = await fetchAtMost(url, maxBytes, signal, failed);
      log?.debug({ event: 'tg_file_downloaded', remotePath, bytes: data.length }, 'downloaded');
      return { data, remotePath };
    },
  };
}

type FilePathOf = (fileId: string, maxBytes: number, signal: AbortSignal) => Promise<string>;

/**
 * Files of a self-hosted Bot API server in `--local` mode, read from the path getFile names
 * (checked by `openLocalFile`). A file held in memory (`download`: voice notes, photos) keeps
 * the 20 MB limit; `stream` takes up to LOCAL_FILE_LIMIT and never holds the file whole.
 */
function localFileSource(filePathOf: FilePathOf, token: string, log?: Logger): FileSource {
  const opened = async (fileId: string, maxBytes: number, signal: AbortSignal) => {
    signal.throwIfAborted();
    const file = await openLocalFile(await filePathOf(fileId, maxBytes, signal), token);
    if (file.bytes > maxBytes) {
      await file.handle.close();
      throw new FileTooLargeError(file.bytes, maxBytes);
    }
    log?.debug(
      { event: 'tg_local_file', remotePath: file.remotePath, bytes: file.bytes },
      'reading a local file',
    );
    return file;
  };
  return {
    maxBytes: TELEGRAM_DOWNLOAD_LIMIT,
    maxStreamBytes: LOCAL_FILE_LIMIT,
    async download(fileId, { maxBytes, signal }) {
      const { handle, remotePath } = await opened(fileId, maxBytes, signal);
      try {
        return { data: await handle.readFile({ signal }), remotePath };
      } finally {
        await handle.close();
      }
    },
    async stream(fileId, { maxBytes, signal }) {
      const { handle, bytes, remotePath } = await opened(fileId, maxBytes, signal);
      if (bytes === 0) {
        await handle.close();
        return { stream: Readable.from([]), bytes, remotePath };
      }
      // At most the size it had when checked, even if the file grows meanwhile.
      const stream = handle.createReadStream({ end: bytes - 1, signal });
      return { stream, bytes, remotePath };
    },
  };
}

/** GET `url` and read its body, refusing more than `maxBytes`. */
async function fetchAtMost(
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  failed: (what: string, error?: unknown) => MediaError,
): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw failed(`file download failed: ${reasonOf(error)}`, error);
  }
  const body = response.body;
  if (!response.ok || !body) {
    await body?.cancel().catch(() => {});
    throw failed(`file download failed: HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await body.cancel().catch(() => {});
    throw new FileTooLargeError(declared, maxBytes);
  }
  return readAtMost(body, maxBytes, signal, failed);
}

/** Reads a body into one Buffer; stops reading (and cancels it) once it passes `maxBytes`. */
async function readAtMost(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal: AbortSignal,
  failed: (what: string, error?: unknown) => MediaError,
): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks, bytes);
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new FileTooLargeError(bytes, maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof FileTooLargeError) throw error;
    if (signal.aborted) throw signal.reason;
    throw failed(`file download broke off after ${bytes} bytes: ${reasonOf(error)}`, error);
  } finally {
    reader.releaseLock();
  }
}

/**
 * fetch's error and its cause, in one line: "fetch failed: connect ECONNREFUSED …". Either
 * may quote the URL, token and all: callers pass the text through the redactor.
 */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** grammY types its signal with its own polyfill; a native one works the same. */
function apiSignal(signal: AbortSignal): Parameters<Api['getFile']>[1] {
  return signal as unknown as Parameters<Api['getFile']>[1];
}
