/**
 * The deepest a JSON-like value from outside may nest. A Telegram update nests about ten
 * levels (a reply's quoted message, its entities); JSON.stringify, zod and other recursive
 * readers overflow the call stack somewhere past a few thousand.
 */
export const MAX_NESTING = 64;

/**
 * Whether `value` nests objects or arrays more than `limit` levels deep (a plain value is
 * depth 0, `{}` depth 1). Walked with a stack of its own, so any depth is measured safely,
 * and it stops as soon as the answer is known.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const work: [value: unknown, depth: number][] = [[value, 0]];
  for (let next = work.pop(); next; next = work.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const inner of Object.values(current)) work.push([inner, depth + 1]);
  }
  return false;
}
