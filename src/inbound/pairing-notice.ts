import type { PairingCode } from '../store/pairing-repo.ts';
import { oneLineCodes } from '../tools/trust/visible-codes.ts';

/**
 * "Sam (id 999)", or "id 999" for a user without a name. A name is what a stranger typed: it
 * is shown on one line, its invisible and direction characters as codes (`<U+202E>`), so it
 * cannot forge a line of what the owner reads or turn the text after it around.
 */
export const whoIs = (who: { name: string | null; userId: string }): string =>
  who.name ? `${oneLineCodes(who.name)} (id ${who.userId})` : `id ${who.userId}`;

/** "37 min": at least one. */
export const minutes = (ms: number): string => `${Math.max(1, Math.ceil(ms / 60_000))} min`;

/**
 * What the owner is told when pairing is full (SPEC §18: 20 codes pending): who was turned
 * away, who holds the codes (each person once, with how many), and when the first expires.
 */
export function pairingFullText(
  refused: { name: string | null; userId: string },
  pending: readonly PairingCode[],
  now: number,
): string {
  const holders = new Map<string, { who: PairingCode; codes: number }>();
  for (const code of pending) {
    const key = `${code.platform}:${code.userId}`;
    const held = holders.get(key);
    if (held) held.codes++;
    else holders.set(key, { who: code, codes: 1 });
  }
  const soonest = Math.min(...pending.map((c) => c.expiresAt));
  return [
    `Pairing is full: ${pending.length} codes are waiting for you, the most there can be, so ${whoIs(refused)} got no code.`,
    'They are held by:',
    ...[...holders.values()].map(
      ({ who, codes }) => `• ${whoIs(who)} — ${codes} ${codes === 1 ? 'code' : 'codes'}`,
    ),
    `Nobody new gets a code until one expires (the first in ${minutes(soonest - now)}) or you pair someone: send /pair to see the codes. I say this at most once a day.`,
  ].join('\n');
}
