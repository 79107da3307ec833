import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';
import { ToolError } from '../tool.ts';

/** A page's title and main text. */
export interface PageText {
  title: string;
  text: string;
}

/**
 * Reads HTML pages off the main thread. Finding a page's text costs CPU that an outsider
 * controls (1,000 nested blocks cost 15 s in the DOM library; 5 MB of links, more), so it
 * runs in a worker thread: the event loop, and every other chat, goes on meanwhile. A page
 * that takes longer than `timeoutMs` or needs more than `maxHeapMb` is an error result and
 * its worker is terminated (the extraction is plain JavaScript, so terminate() stops it
 * wherever it is).
 */
export interface PageReader {
  /** Rejects with a ToolError the model reads, or with `signal`'s reason. */
  read(html: string, signal?: AbortSignal): Promise<PageText>;
  /** Terminates every worker; reads still waiting are rejected. */
  close(): Promise<void>;
}

export interface PageReaderOptions {
  /** One page's reading, waiting for a worker included. Default 5000. */
  timeoutMs?: number;
  /** Each worker's V8 heap, in MB. Default 256. */
  maxHeapMb?: number;
  /** Pages read at once (one worker each). Default 2. */
  maxConcurrent?: number;
  /** An idle worker is terminated after this long. Default 30 000. */
  idleMs?: number;
}

/** Plain JavaScript, so the worker runs under node, tsx and vitest alike, with no loader. */
const WORKER_FILE = new URL('./page-worker.mjs', import.meta.url);

/** A worker, and the timer that ends it when it has been idle too long. */
interface Slot {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
}

export function createPageReader(options: PageReaderOptions = {}): PageReader {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxHeapMb = options.maxHeapMb ?? 256;
  const idleMs = options.idleMs ?? 30_000;
  const queue = new PQueue({ concurrency: options.maxConcurrent ?? 2 });
  const idle: Slot[] = [];
  const all = new Set<Worker>();
  let ids = 0;

  const spawn = (): Slot => {
    const worker = new Worker(WORKER_FILE, {
      // Not tsx's loader: the worker imports only JavaScript.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, stackSizeMb: 8 },
    });
    worker.unref(); // an idle worker never keeps the process alive; a busy one does
    all.add(worker);
    const slot: Slot = { worker };
    // A worker can fail outside a read (its heap limit reached after the read gave up on
    // it): the read in progress, if any, has its own listener; otherwise the failure only
    // ends this worker, which must not become an uncaught error of the process.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      all.delete(worker);
      const at = idle.indexOf(slot);
      if (at >= 0) idle.splice(at, 1);
    });
    return slot;
  };
  const take = (): Slot => {
    const slot = idle.pop() ?? spawn();
    clearTimeout(slot.idleTimer);
    slot.worker.ref();
    return slot;
  };
  const give = (slot: Slot) => {
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => {
      const at = idle.indexOf(slot);
      if (at !== -1) idle.splice(at, 1);
      void slot.worker.terminate();
    }, idleMs);
    slot.idleTimer.unref();
    idle.push(slot);
  };

  const run = (html: string, deadline: AbortSignal): Promise<PageText> => {
    const slot = take();
    const id = ++ids;
    return new Promise<PageText>((resolve, reject) => {
      const done = (outcome: { text: PageText } | { error: unknown }, keep: boolean) => {
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
        deadline.removeEventListener('abort', onAbort);
        if (keep) give(slot);
        else void slot.worker.terminate();
        if ('text' in outcome) resolve(outcome.text);
        else reject(outcome.error);
      };
      const onMessage = (m: { id: number; title?: string; text?: string; error?: string }) => {
        if (m.id !== id) return;
        if (m.error !== undefined)
          done({ error: new ToolError(`the page could not be read: ${m.error}`) }, true);
        else done({ text: { title: m.title ?? '', text: m.text ?? '' } }, true);
      };
      const onError = (error: Error & { code?: string }) =>
        done({ error: workerFailure(error, maxHeapMb) }, false);
      const onExit = () =>
        done({ error: new ToolError('the page could not be read: its reader stopped') }, false);
      const onAbort = () => done({ error: deadline.reason }, false);
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      deadline.addEventListener('abort', onAbort, { once: true });
      slot.worker.postMessage({ id, html });
    });
  };

  return {
    async read(html, signal) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const deadline = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        return await queue.add(() => run(html, deadline), { signal: deadline });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (timeout.aborted)
          throw new ToolError(
            `the page is too complex to read (its text was not found within ${timeoutMs / 1000} s)`,
          );
        throw error;
      }
    },
    async close() {
      queue.clear();
      for (const slot of idle.splice(0)) clearTimeout(slot.idleTimer);
      await Promise.all([...all].map((w) => w.terminate()));
    },
  };
}

function workerFailure(error: Error & { code?: string }, maxHeapMb: number): ToolError {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new ToolError(`the page is too large to read (it needed more than ${maxHeapMb} MB)`);
  return new ToolError(`the page could not be read: ${error.message}`);
}

let shared: PageReader | undefined;

/** The process's page reader, made on first use (its workers are unref'd and time out idle). */
export function sharedPageReader(): PageReader {
  shared ??= createPageReader();
  return shared;
}
