import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../store/sqlite.ts';

/**
 * What `/healthz` answers: liveness only, never a token, a message or a number of the
 * ledger. `ok` is what a supervisor (Docker's HEALTHCHECK) acts on.
 */
export interface Health {
  ok: boolean;
  /** How updates come in: long polling (the default), the webhook, or none (no Telegram). */
  mode: 'polling' | 'webhook' | 'none';
  /** Updates can come in: the polling loop runs, or the webhook listens and is registered. */
  polling: boolean;
  /** Since Telegram last answered a getUpdates; null before the first answer (and for a webhook). */
  last_poll_age_ms: number | null;
  /** Since the last update arrived; null when none has since start (a quiet bot is fine). */
  last_update_age_ms: number | null;
  /** Outbox rows written and not yet delivered. */
  pending_outbox: number;
  /** The core database takes a write lock. */
  db_writable: boolean;
}

export interface HealthDeps {
  /** The core database connection (the app's own: its lock is probed, nothing is written). */
  sqlite: Database;
  clock: Clock;
  /** The ingress's `status()` (long polling or the webhook); none without Telegram. */
  ingress?: { status(): IngressStatus };
}

interface IngressStatus {
  polling: boolean;
  lastFetchAt?: number;
  lastUpdateAt?: number;
  mode?: Health['mode'];
}

/**
 * A long poll ends within about 45 s (30 s of waiting plus slack); past twice that without
 * an answer, Telegram has not been reached for a while (the poller keeps retrying).
 */
export const POLL_STALE_MS = 90_000;

/** What a satchel without Telegram (the web chat alone) reports for its ingress. */
const NO_TELEGRAM: IngressStatus = { polling: false, mode: 'none' };

/**
 * The health snapshot: healthy while updates can come in (polling runs and Telegram answered
 * recently, or the webhook is up; without Telegram there is nothing to wait for) and the
 * database takes writes. Cheap (one count, one lock probe) and never throws.
 */
export function health(deps: HealthDeps): Health {
  const now = deps.clock.now();
  const status = deps.ingress?.status() ?? NO_TELEGRAM;
  const age = (at: number | undefined) => (at === undefined ? null : Math.max(0, now - at));
  const lastPoll = age(status.lastFetchAt);
  const writable = dbWritable(deps.sqlite);
  const mode = status.mode ?? 'polling';
  // A webhook waits for Telegram to call: a quiet one is not a stale one.
  const fresh = mode === 'webhook' || (lastPoll !== null && lastPoll < POLL_STALE_MS);
  return {
    ok: writable && (mode === 'none' || (status.polling && fresh)),
    mode,
    polling: status.polling,
    last_poll_age_ms: lastPoll,
    last_update_age_ms: age(status.lastUpdateAt),
    pending_outbox: pendingOutbox(deps.sqlite),
    db_writable: writable,
  };
}

function pendingOutbox(sqlite: Database): number {
  try {
    const row = sqlite
      .prepare("SELECT count(*) AS n FROM outbox WHERE status = 'pending'")
      .get() as { n: number };
    return row.n;
  } catch {
    return -1; // the database cannot be read: db_writable says so too
  }
}

/**
 * Takes the write lock and lets it go (BEGIN IMMEDIATE; ROLLBACK): a read-only file, a
 * closed connection or another writer holding the lock all fail it; nothing is written.
 * The busy wait is cut to 100 ms so a probe never stalls the process.
 */
function dbWritable(sqlite: Database): boolean {
  if (!sqlite.open || sqlite.readonly) return false;
  if (sqlite.inTransaction) return true; // a write of this connection is under way
  const timeout = sqlite.pragma('busy_timeout', { simple: true });
  try {
    sqlite.pragma('busy_timeout = 100');
    sqlite.prepare('BEGIN IMMEDIATE').run();
    sqlite.prepare('ROLLBACK').run();
    return true;
  } catch {
    return false;
  } finally {
    if (sqlite.open) sqlite.pragma(`busy_timeout = ${Number(timeout)}`);
  }
}

/**
 * The `/healthz` handler for the dashboard server: no token, 200 with the snapshot when
 * healthy, 503 with it when not (what Docker's HEALTHCHECK and load balancers read). GET
 * and HEAD only. Never cached.
 */
export function healthHandler(deps: HealthDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const snapshot = health(deps);
    const body = JSON.stringify(snapshot);
    res.writeHead(snapshot.ok ? 200 : 503, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
