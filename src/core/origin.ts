/**
 * Where an inbound event came from: a channel's update (stored in the durable inbox), a
 * job's run, a line typed in the terminal. Acknowledging its origin — in the transaction
 * that writes the reply — settles it for good: an update is marked done, a job run is
 * finished. Until then a crash leaves it to be run again, so nothing is lost or answered
 * twice.
 */
export type Origin =
  | { source: 'update'; updateIds: number[] }
  | { source: 'job'; jobId: string; dueAt: number }
  | { source: 'local'; seq: number };

/**
 * A stable key for an origin, used to store the user's input once: a replayed update or a
 * re-run job stores only what the crashed run had not stored yet.
 */
export function originKey(origin: Origin): string {
  switch (origin.source) {
    case 'update':
      return `tg:update:${origin.updateIds[0]}`;
    case 'job':
      return `job:${origin.jobId}:${origin.dueAt}`;
    case 'local':
      return `local:${origin.seq}`;
  }
}

/** One origin for events gathered into one (an album, an edit of a waiting text). */
export function mergeOrigins(a: Origin, b: Origin): Origin {
  if (a.source === 'update' && b.source === 'update')
    return { source: 'update', updateIds: [...a.updateIds, ...b.updateIds] };
  return a;
}

/** How each source settles an origin; a source without one needs nothing. */
export interface OriginAcks {
  /** A channel's updates are marked done in the inbox. */
  update?(updateIds: readonly number[], now: number): void;
  job?(jobId: string, dueAt: number, now: number): void;
}

/** Settles every origin (call inside the reply's transaction). */
export function acknowledge(acks: OriginAcks, origins: readonly Origin[], now: number): void {
  const updateIds = origins.flatMap((o) => (o.source === 'update' ? o.updateIds : []));
  if (updateIds.length > 0) acks.update?.(updateIds, now);
  for (const origin of origins)
    if (origin.source === 'job') acks.job?.(origin.jobId, origin.dueAt, now);
}
