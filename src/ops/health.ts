import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EdgeHealth } from '../core/edge.ts';
import type { Database } from '../store/sqlite.ts';

/**
 * What `/healthz` answers: liveness only, never a token, a message or a number of the
 * ledger. `ok` is what a supervisor (Docker's HEALTHCHECK) acts on.
 */
export interface Health {
  ok: boolean;
  /**
   * Each edge's own section, under its platform (`tg`, …): its `ok` (its input can come in)
   * and the fields it reports. The core reads none of them.
   */
  edges: Record<string, { ok: boolean } & EdgeHealth['fields']>;
  /** Outbox rows written and not yet delivered. */
  pending_outbox: number;
  /** The core database takes a write lock. */
  db_writable: boolean;
}

/** An edge's ingress as `/healthz` reads it: its platform, and its health if it reports one. */
export interface EdgeHealthSource {
  platform: string;
  health?(): EdgeHealth;
}

export interface HealthDeps {
  /** The core database connection (the app's own: its lock is probed, nothing is written). */
  sqlite: Database;
  /** The edges' ingresses: each that reports health adds its section and its `ok`. */
  edges: readonly EdgeHealthSource[];
}

/**
 * The health snapshot: healthy while every edge that reports says its input can come in and
 * the database takes writes. Cheap (one count, one lock probe) and never throws.
 */
export function health(deps: HealthDeps): Health {
  const reports = deps.edges.flatMap((edge) =>
    edge.health ? [[edge.platform, edge.health()] as const] : [],
  );
  const writable = dbWritable(deps.sqlite);
  return {
    ok: writable && reports.every(([, report]) => report.ok),
    edges: Object.fromEntries(
      reports.map(([platform, report]) => [platform, { ok: report.ok, ...report.fields }]),
    ),
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
