/**
 * Files a test registered with the fake Telegram server (`addFile`): what getFile answers and
 * how `GET /file/bot{token}/{file_path}` serves the bytes (at once, late, slowly, expired);
 * or, as a self-hosted server in `--local` mode, a path on disk (`addLocalFile`).
 */
import { statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Waits } from './telegram-waits.ts';
import { fail, ok, type Params, type Reply, send } from './telegram-wire.ts';
import { WAIT_BUDGET_MS } from './wait-budget.ts';

/** How `addFile` serves a file. */
export interface FileOptions {
  /** The `file_path` getFile answers (default `files/<fileId>`). */
  filePath?: string;
  /** Wait this long before the download's response starts. */
  delayMs?: number;
  /** Stream the body at about this rate (in small chunks) instead of all at once. */
  bytesPerSecond?: number;
  /** The `file_size` getFile reports (default: the real size); `null` leaves it out. */
  reportedSize?: number | null;
  /** Send a Content-Length header with the download (default true). */
  contentLength?: boolean;
  /** getFile still answers, but the download is a 404 (the link expired). */
  expired?: boolean;
}

interface StoredFile extends FileOptions {
  bytes: Buffer;
  filePath: string;
  /** A local file's size on disk (`addLocalFile`). */
  localSize?: number;
}

/** Chunks per second of a slow (`bytesPerSecond`) download. */
const CHUNKS_PER_SECOND = 20;

export class FileStore {
  private readonly files = new Map<string, StoredFile>();
  private readonly downloaded: string[] = [];
  private readonly completed: string[] = [];

  constructor(
    private readonly waits: Waits,
    private readonly stopping: AbortSignal,
  ) {}

  /**
   * Registers a file for getFile and download. The third argument is its `file_path`, or
   * options: a slow download (`delayMs`, `bytesPerSecond`), a `file_size` that getFile
   * reports differently (`reportedSize`), no Content-Length header, an expired link.
   */
  addFile(fileId: string, bytes: Buffer, options: string | FileOptions = {}): void {
    const opts = typeof options === 'string' ? { filePath: options } : options;
    this.files.set(fileId, { ...opts, bytes, filePath: opts.filePath ?? `files/${fileId}` });
  }

  /**
   * Answers getFile for `fileId` as a self-hosted Bot API server in `--local` mode does: with
   * `filePath` as it is (an absolute path on the server's disk, or whatever a test wants the
   * server to say) and the size of what is there, and no download behind it.
   */
  addLocalFile(fileId: string, filePath: string): void {
    let size: number | null = null;
    try {
      size = statSync(filePath).size;
    } catch {
      // Nothing there (or a path that is not one): getFile names no size.
    }
    this.files.set(fileId, {
      bytes: Buffer.alloc(0),
      filePath,
      reportedSize: size,
      expired: true,
      ...(size === null ? {} : { localSize: size }),
    });
  }

  /** File paths whose download was requested (with the right token), in order. */
  downloads(): string[] {
    return [...this.downloaded];
  }

  /** File paths whose download body was sent in full, in order. */
  completedDownloads(): string[] {
    return [...this.completed];
  }

  /** Resolves once a download (of `filePath`, when given) has been requested. */
  async waitForDownload(filePath?: string, timeoutMs = WAIT_BUDGET_MS): Promise<void> {
    const started = () => this.downloaded.some((p) => filePath === undefined || p === filePath);
    await this.waits.until(
      () => (started() ? true : undefined),
      timeoutMs,
      () =>
        `waitForDownload: no download${filePath ? ` of ${filePath}` : ''} within ${timeoutMs}ms ` +
        `(downloads: ${this.downloaded.join(', ') || 'none'})`,
    );
  }

  /** The registered file's size, for the `file_size` of an update that carries it. */
  sizeOf(fileId: string, fallback: number): number {
    const file = this.files.get(fileId);
    if (!file) return fallback;
    return file.localSize ?? file.bytes.length;
  }

  getFile(p: Params): Reply {
    const file = this.files.get(String(p.file_id));
    if (!file) return fail(400, 'Bad Request: invalid file_id');
    const { file_id } = p;
    const { bytes, filePath, reportedSize } = file;
    const size = reportedSize === undefined ? bytes.length : reportedSize;
    return ok({
      file_id,
      file_unique_id: `u-${file_id}`,
      ...(size === null ? {} : { file_size: size }),
      file_path: filePath,
    });
  }

  /** Serves a download whose token was checked; an unknown or expired path is a 404. */
  async download(res: ServerResponse, rawPath: string): Promise<void> {
    const path = decodeURIComponent(rawPath);
    const file = [...this.files.values()].find((f) => f.filePath === path);
    if (!file || file.expired) {
      send(res, fail(404, 'Not Found'));
      return;
    }
    this.downloaded.push(path);
    this.waits.notify();
    const { bytes } = file;
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const signal = AbortSignal.any([this.stopping, gone.signal]);
    try {
      if (file.delayMs) await sleep(file.delayMs, undefined, { signal });
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        ...(file.contentLength === false ? {} : { 'content-length': bytes.length }),
      });
      const chunk = file.bytesPerSecond
        ? Math.max(1, Math.ceil(file.bytesPerSecond / CHUNKS_PER_SECOND))
        : bytes.length;
      for (let at = 0; at < bytes.length; at += chunk) {
        if (at > 0) await sleep(1000 / CHUNKS_PER_SECOND, undefined, { signal });
        res.write(bytes.subarray(at, at + chunk));
      }
      res.end();
      this.completed.push(path);
      this.waits.notify();
    } catch {
      res.destroy(); // the client went away, or the fake stopped
    }
  }
}
