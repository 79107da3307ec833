/** Dollars readable at any size: cents for dollars, two significant digits below a cent. */
export function usd(n: number): string {
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n >= 0.01) return `$${n.toFixed(4)}`;
  return `$${n.toPrecision(2)}`;
}
