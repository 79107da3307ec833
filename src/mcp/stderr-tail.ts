import { StringDecoder } from 'node:string_decoder';

/** How much of a server's stderr is kept: enough for a failure reason, never more. */
export const STDERR_TAIL_CHARS = 4096;
/** The most bytes of one chunk that can matter: a UTF-8 character takes at most 4. */
const BYTES_PER_CHAR = 4;

/**
 * The last few KB a server wrote to stderr. The stream is read as fast as it comes (so a
 * server that floods stderr never blocks on a full pipe) and all but the tail is dropped,
 * chunk by chunk: only a chunk's last bytes are decoded, and nothing is searched, so a
 * chunk costs the same however much a server writes. The redactor runs when the tail is
 * read, over twice what is shown: a secret split across chunks is whole when it meets the
 * redactor, and a cut never halves one.
 */
export function createStderrTail(
  limit = STDERR_TAIL_CHARS,
  redact: (text: string) => string = (text) => text,
) {
  // Twice the limit is kept, so a secret longer than what is shown still meets the
  // redactor whole before the shown part is cut from it.
  const window = limit * 2;
  let kept = '';
  let decoder = new StringDecoder('utf8');
  const redacted = () => redact(kept);
  return {
    push(chunk: Buffer | string): void {
      let text: string;
      if (typeof chunk === 'string') text = chunk;
      else if (chunk.length > window * BYTES_PER_CHAR) {
        // Whatever came before is cut anyway; a character halved at the cut is too.
        decoder = new StringDecoder('utf8');
        text = decoder.write(chunk.subarray(chunk.length - window * BYTES_PER_CHAR));
      } else text = decoder.write(chunk);
      kept = text.length >= window ? text.slice(-window) : (kept + text).slice(-window);
    },
    text: (): string => redacted().slice(-limit),
    /** The last non-empty line, shortened: what a failure reason quotes. */
    lastLine(max = 300): string {
      const line = redacted().trimEnd().split('\n').pop()?.trim() ?? '';
      return line.length > max ? `${line.slice(0, max)}…` : line;
    },
  };
}

export type StderrTail = ReturnType<typeof createStderrTail>;
