/** `20250131-184502`: a moment in UTC for file names, so they sort the same on every machine. */
export function fileStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '-');
}
