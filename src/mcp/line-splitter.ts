/**
 * Splits a byte stream into lines (without the `\n`), each chunk searched once: the part of
 * a line that has not ended yet is kept as the chunks it came in and joined once, when its
 * end arrives — not copied again with every chunk, as a growing buffer would be. A line
 * longer than `maxBytes` throws (the caller closes the stream).
 */
export function createLineSplitter(maxBytes: number, onLine: (line: Buffer) => void) {
  let parts: Buffer[] = [];
  let pending = 0;
  return {
    push(chunk: Buffer): void {
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        if (end === -1) break;
        const piece = chunk.subarray(start, end);
        const line = parts.length > 0 ? Buffer.concat([...parts, piece]) : piece;
        parts = [];
        pending = 0;
        start = end + 1;
        onLine(line);
      }
      if (start >= chunk.length) return;
      pending += chunk.length - start;
      if (pending > maxBytes) {
        parts = [];
        pending = 0;
        throw new Error(`a message from the server is over ${maxBytes} bytes`);
      }
      parts.push(chunk.subarray(start));
    },
  };
}
