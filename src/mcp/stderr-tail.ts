/** How much of a server's stderr is kept: enough for a failure reason, never more. */
export const STDERR_TAIL_CHARS = 4096;

/**
 * The last few KB a server wrote to stderr. The stream is read as fast as it comes (so a
 * server that floods stderr never blocks on a full pipe) and all but the tail is dropped.
 */
export function createStderrTail(limit = STDERR_TAIL_CHARS) {
  let tail = '';
  return {
    push(chunk: Buffer | string): void {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      tail = text.length >= limit ? text.slice(-limit) : (tail + text).slice(-limit);
    },
    text: (): string => tail,
    /** The last non-empty line, shortened: what a failure reason quotes. */
    lastLine(max = 300): string {
      const line = tail.trimEnd().split('\n').pop()?.trim() ?? '';
      return line.length > max ? `${line.slice(0, max)}…` : line;
    },
  };
}

export type StderrTail = ReturnType<typeof createStderrTail>;
