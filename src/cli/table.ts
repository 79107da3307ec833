/**
 * Columns padded to their widest cell: the first and those in `left` left-aligned (text),
 * the others right-aligned (numbers).
 */
export function table(headers: string[], rows: string[][], left: number[] = []): string[] {
  if (rows.length === 0) return ['  (none)'];
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const pad = (cell: string, c: number) =>
    c === 0 || left.includes(c) ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!);
  const line = (cells: string[]) => `  ${cells.map(pad).join('  ')}`.trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
