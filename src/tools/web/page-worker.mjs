// The page reader's worker thread: reads one page per message, in order. Plain JavaScript
// (see page-text.mjs). A message is { id, html }; the answer { id, title, text } or
// { id, error }. page-reader.ts terminates this thread when a page takes too long.
import { parentPort } from 'node:worker_threads';
import { readableText } from './page-text.mjs';

parentPort?.on('message', ({ id, html }) => {
  try {
    parentPort?.postMessage({ id, ...readableText(html) });
  } catch (error) {
    parentPort?.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
