const FIRST_MS = 1000;
const MAX_MS = 60_000;

/**
 * How long to wait before the next start of a server after `strikes` failures in a row
 * (failed starts and crashes): 1 s, 2 s, 4 s … at most 60 s. A first crash after a good
 * start costs no wait (`graceStrikes` 1): a server that died once is restarted at once.
 */
export function backoffMs(strikes: number, graceStrikes = 0): number {
  const n = strikes - graceStrikes;
  if (n <= 0) return 0;
  return Math.min(MAX_MS, FIRST_MS * 2 ** (n - 1));
}
