/**
 * The option closest to `typed`, when it is close enough to be a typo (an edit distance of
 * at most a third of its length, and at least 1): `db_qurey` → `db_query`.
 */
export function closest(typed: string, options: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(typed.length / 3));
  let best: { option: string; distance: number } | undefined;
  for (const option of options) {
    const distance = editDistance(typed.toLowerCase(), option.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { option, distance };
  }
  return best?.option;
}

/** " (did you mean `x`?)" when there is a close option, else "". */
export function didYouMean(typed: string, options: readonly string[]): string {
  const near = closest(typed, options);
  return near === undefined ? '' : ` (did you mean \`${near}\`?)`;
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}
