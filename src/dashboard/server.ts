import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import type { Db } from '../store/client.ts';
import { createUsageAggregates, type TurnSourceOf } from '../usage/aggregates.ts';
import { createCalendar } from '../usage/calendar.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { usageOverview } from '../usage/overview.ts';
import type { Caps } from '../usage/quota.ts';
import { tokenChecker } from './auth.ts';
import { createHandler, type Mount, type Route } from './handler.ts';
import { loadPage } from './page.ts';

/** The only address the dashboard listens on. */
export const DASHBOARD_HOST = '127.0.0.1';

export interface DashboardDeps {
  /** A read-only connection to the core database (`openCoreReader`). */
  db: Db;
  config: { port: number; token: string; caps: Caps; timezone: string };
  /** The model catalog: prices what the prompt cache saved. */
  catalog: ModelCatalog;
  clock: Clock;
  log: Logger;
  /** What `GET /healthz` answers (no token needed); no such route without it. */
  health?: () => object;
  /** Routes served beside the dashboard, behind its token (the web chat's `/chat`). */
  mounts?: readonly Mount[];
  /** What a turn on each platform counts as in `recent_turns.source` (its edge says). */
  sourceOf?: TurnSourceOf;
}

export interface Dashboard {
  /**
   * Listens on 127.0.0.1. Resolves with the URL to open (token included; `urlFor` gives
   * another page's, such as `/chat`) or, when the port is taken or cannot be used, logs why
   * and resolves undefined: the bot runs on without its dashboard.
   */
  start(): Promise<{ url: string; urlFor(path: string): string } | undefined>;
  stop(): Promise<void>;
  /** Every route the server answers, the mounts' too (tests walk them all). */
  readonly routes: readonly Route[];
}

/**
 * The local cost dashboard: the page, `GET /api/usage`, optionally `/healthz`, and the
 * routes mounted beside it (the web chat).
 */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const { config, log } = deps;
  const aggregates = createUsageAggregates(deps.db, deps.sourceOf);
  const calendar = createCalendar(config.timezone);
  const handler = createHandler({
    assets: loadPage(),
    usage: (days) =>
      usageOverview({
        aggregates,
        calendar,
        caps: config.caps,
        catalog: deps.catalog,
        now: deps.clock.now(),
        days,
      }),
    check: tokenChecker(config.token),
    health: deps.health,
    mounts: deps.mounts,
    log,
  });
  let server: Server | undefined;

  return {
    routes: handler.routes,

    async start() {
      const candidate = createServer(handler);
      const port = await listen(candidate, config.port).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE')
          log.warn(
            { event: 'dashboard_port_in_use', port: config.port },
            `dashboard off: port ${config.port} on ${DASHBOARD_HOST} is already in use. ` +
              'Stop what uses it, or set DASHBOARD_PORT to another port (0 picks a free one). ' +
              'The bot keeps running.',
          );
        else
          log.error(
            { event: 'dashboard_unavailable', port: config.port, err: error },
            'dashboard off: could not listen; the bot keeps running',
          );
        return undefined;
      });
      if (port === undefined) return undefined;
      server = candidate;
      candidate.on('error', (error) =>
        log.error({ event: 'dashboard_error', err: error }, 'dashboard server error'),
      );
      const base = `http://${DASHBOARD_HOST}:${port}/`;
      log.info({ event: 'dashboard_started', url: base }, `dashboard on ${base}`);
      const urlFor = (path: string) =>
        `${base}${path.replace(/^\//, '')}?token=${encodeURIComponent(config.token)}`;
      return { url: urlFor('/'), urlFor };
    },

    async stop() {
      const running = server;
      server = undefined;
      if (!running) return;
      const closed = new Promise<void>((resolve) => running.close(() => resolve()));
      // An open page keeps a connection alive; it must not hold up shutdown.
      running.closeAllConnections();
      await closed;
    },
  };
}

/** Listens on the loopback address; resolves with the port, rejects with the listen error. */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: DASHBOARD_HOST }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
