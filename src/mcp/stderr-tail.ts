/** How much of a server's stderr is kept: enough for a failure reason, never more. */
export const STDERR_TAIL_CHARS = 4096;

/**
 * The last few KB a server wrote to stderr. The stream is read as fast as it comes (so a
 * server that floods stderr never blocks on a full pipe) and all but the tail is dropped.
 * Each chunk is redacted together with the kept tail before anything is cut: a secret split
 * across chunks is still whole when the redactor sees it, and a cut never halves one.
 */
export function createStderrTail(
  limit = STDERR_TAIL_CHARS,
  redact: (text: string) => string = (text) => text,
) {
  // Twice the limit is kept redacted, so a secret longer than what is shown still meets the
  // redactor whole before the shown part is cut from it.
  const window = limit * 2;
  let kept = '';
  const tail = () => kept.slice(-limit);
  return {
    push(chunk: Buffer | string): void {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      kept = redact(kept + text).slice(-window);
    },
    text: (): string => tail(),
    /** The last non-empty line, shortened: what a failure reason quotes. */
    lastLine(max = 300): string {
      const line = kept.trimEnd().split('\n').pop()?.trim() ?? '';
      return line.length > max ? `${line.slice(0, max)}…` : line;
    },
  };
}

export type StderrTail = ReturnType<typeof createStderrTail>;
