/**
 * A long secret setting (longer than any cut of failure text) and the test that none of it
 * is in a text: no run of 12 of its characters, so a secret cut in half is caught too.
 */
export const LONG_SECRET = `tok${Array.from({ length: 90 }, (_, i) => (i * 7919 + 104729).toString(36)).join('')}`;

export function secretFragmentsIn(text: string, secret = LONG_SECRET): string[] {
  const found: string[] = [];
  for (let at = 0; at + 12 <= secret.length; at++) {
    const piece = secret.slice(at, at + 12);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}
