import type { Config } from './config/config.ts';
import { type EnvFileProblem, formatEnvProblem } from './config/env-lint.ts';
import { background } from './core/background.ts';
import { type CoreOptions, createCore } from './core-app.ts';
import { keptToken } from './dashboard/kept-token.ts';
import { createDashboard } from './dashboard/server.ts';
import { edgesOf } from './edges.ts';
import { health } from './ops/health.ts';
import { modelsInUse } from './providers/models-in-use.ts';
import { openCoreReader } from './store/read-only.ts';
import { warnUnknownPrices } from './usage/unknown-prices.ts';
import { WEB_PLATFORM } from './web/channel.ts';

/**
 * Start-up left no way in (SPEC §16): the web chat could not listen and no other edge
 * (Telegram) runs. The message names the port and what to do; `npm start` exits 1 with it.
 */
export class NoWayIn extends Error {
  override name = 'NoWayIn';
  constructor(readonly port: number) {
    super(
      `the web chat cannot listen on port ${port} of 127.0.0.1 (see the log: in use, or refused), ` +
        'and without TELEGRAM_BOT_TOKEN there is no other way in. ' +
        `Free port ${port} or set DASHBOARD_PORT to another (0 picks a free one), or set TELEGRAM_BOT_TOKEN; then start again.`,
    );
  }
}

export interface AppOptions extends CoreOptions {
  /** Where the dashboard's and the chat's addresses (token included) are printed; stderr. */
  announce?: (line: string) => void;
  /** The mistakes found in `.env` (config/env-lint.ts): each is a warning at start. */
  envFileProblems?: readonly EnvFileProblem[];
  /** The edges instead of `edgesOf` (a test adds one of its own). */
  edges?: typeof edgesOf;
}

/**
 * Wires satchel: the core (core-app.ts) on its edges — the web chat (SPEC §16) always, and
 * the Telegram bot, with the allowlist and polling in front, when TELEGRAM_BOT_TOKEN is set.
 * Without it nothing calls the Bot API. Nothing runs until `start`.
 */
export function createApp(given: Config, options: AppOptions = {}) {
  // Unset, the token kept in SATCHEL_HOME: a restart keeps every signed-in page signed in.
  const token = given.dashboard.token ?? keptToken(given.home);
  const config: Config = { ...given, dashboard: { ...given.dashboard, token } };
  const core = createCore(config, (options.edges ?? edgesOf)(config), options);
  const { clock, log, store, ingresses } = core;
  // Another way in than the web chat (Telegram): the chat alone may not be the only one.
  const elsewhere = [...core.edges.values()].some(
    (edge) => edge.channel !== undefined && edge.platform !== WEB_PLATFORM,
  );

  // The dashboard reads over its own read-only connection (the core made the database).
  const reader = openCoreReader(config.home)!;
  const dashboard = createDashboard({
    db: reader.db,
    catalog: core.catalog,
    config: {
      port: config.dashboard.port,
      token,
      caps: config.quota,
      timezone: config.timezone,
    },
    clock,
    log,
    health: () => health({ sqlite: store.sqlite, edges: ingresses.health }),
    mounts: ingresses.mounts,
    sourceOf: (platform) => core.profileOf(platform).source,
  });
  const announce = options.announce ?? ((line: string) => process.stderr.write(`${line}\n`));

  return {
    log,
    store,
    /** Every route of the dashboard's server, the web chat's among them. */
    routes: dashboard.routes,

    /** Rejects with NoWayIn when neither the web chat nor another edge can be reached. */
    async start(): Promise<void> {
      log.info(
        {
          event: 'satchel_starting',
          provider: core.model.provider,
          model: core.model.model,
          packs: core.packs.list().map((p) => p.name),
          telegram: elsewhere,
        },
        'starting',
      );
      for (const problem of options.envFileProblems ?? [])
        log.warn({ event: 'env_file_problem', line: problem.line }, formatEnvProblem(problem));
      warnUnknownPrices(
        log,
        core.catalog,
        modelsInUse(
          config,
          core.catalog,
          core.packs.list().map((p) => ({ pack: p.name, model: p.manifest.model })),
        ),
        config.models.unknownPrice,
      );
      background(log, 'outbox_resume_failed', core.outbox.resumeUnsent());
      ingresses.ready();
      // Up before polling, which may wait long for Telegram. The full addresses go to
      // stderr, not the log: the log redacts the token.
      const board = await dashboard.start();
      if (board) {
        announce(`satchel dashboard: ${board.url}`);
        announce(`satchel web chat: ${board.urlFor('/chat')}`);
        log.info({ event: 'web_chat_started', url: board.urlFor('/chat') }, 'web chat up');
      } else if (!elsewhere) {
        const stop = new NoWayIn(config.dashboard.port);
        log.error({ event: 'web_chat_unavailable', port: config.dashboard.port }, stop.message);
        throw stop;
      }
      // Every edge's ingress in list order; the scheduler (the job edge) last.
      await ingresses.start();
      log.info({ event: 'satchel_started' }, elsewhere ? 'polling' : 'web chat only');
    },

    /**
     * Stops the dashboard and every edge's ingress, lets running turns finish and outboxes
     * flush for at most 10 s together, then closes the databases. What did not finish stays
     * pending for the next start.
     */
    async stop(): Promise<void> {
      await core.stop(() => dashboard.stop());
      reader.close();
    },
  };
}

export type App = ReturnType<typeof createApp>;
