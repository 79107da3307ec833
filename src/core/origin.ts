/**
 * Where an inbound event came from, as its edge names it: the edge's `platform` and keys the
 * core never reads (a Telegram update, a job's run, a line typed in the terminal, a web chat
 * message). An event gathered from several (an album, an edit of a waiting text) has several
 * keys. Acknowledging an origin — in the transaction that writes the reply — settles it for
 * good through its edge (the inbox marks the update done; the job run is finished). Until
 * then a crash leaves it to be run again, so nothing is lost or answered twice.
 */
export interface Origin {
  readonly platform: string;
  readonly keys: readonly string[];
}

/**
 * A stable key for an origin, used to store the user's input once: a replayed update or a
 * re-run job stores only what the crashed run had not stored yet.
 */
export function originKey(origin: Origin): string {
  return `${origin.platform}:${origin.keys[0]}`;
}

/** One origin for events gathered into one (an album, an edit of a waiting text). */
export function mergeOrigins(a: Origin, b: Origin): Origin {
  return a.platform === b.platform ? { platform: a.platform, keys: [...a.keys, ...b.keys] } : a;
}

/**
 * How an edge settles its origins' keys (inside the reply's transaction). `failure`: the
 * turn failed, and this is the error line it answers with (an edge may keep it to show).
 */
export type Acknowledge = (keys: readonly string[], now: number, failure?: string) => void;

/** Settles every origin through its edge; an edge without acknowledgement needs none. */
export function acknowledge(
  acks: (platform: string) => Acknowledge | undefined,
  origins: readonly Origin[],
  now: number,
  failure?: string,
): void {
  const keys = new Map<string, string[]>();
  for (const origin of origins)
    keys.set(origin.platform, [...(keys.get(origin.platform) ?? []), ...origin.keys]);
  for (const [platform, settled] of keys) acks(platform)?.(settled, now, failure);
}
