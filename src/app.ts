import type { Config } from './config/config.ts';
import { background } from './core/background.ts';
import type { InboundEvent } from './core/types.ts';
import { type CoreOptions, createCore } from './core-app.ts';
import { createDashboard } from './dashboard/server.ts';
import { health } from './ops/health.ts';
import { modelsInUse } from './providers/models-in-use.ts';
import { openCoreReader } from './store/read-only.ts';
import { telegramEdge } from './telegram/edge.ts';
import { createIngress } from './telegram/ingress.ts';
import { createWebhookIngress } from './telegram/webhook.ts';
import { warnUnknownPrices } from './usage/unknown-prices.ts';

export interface AppOptions extends CoreOptions {
  /** Where the dashboard's address (token included) is printed; stderr when not given. */
  announce?: (line: string) => void;
  /** Polling stopped for good (Telegram refused the token, or another instance polls). */
  onFatal?: (error: unknown) => void;
}

/**
 * Wires the Telegram bot: the core (core-app.ts) on the Telegram channel, with the allowlist
 * and polling in front of its pipeline. Nothing runs until `start`.
 */
export function createApp(config: Config, options: AppOptions = {}) {
  const edge = telegramEdge({
    token: config.telegram.token,
    apiRoot: config.telegram.apiRoot,
    allowedUserIds: config.telegram.allowedUserIds,
    webhookSecret: config.telegram.webhook?.secret,
  });
  const core = createCore(config, [edge.factory], options);
  const { clock, log, store, pipeline } = core;
  const { adapter: telegram, inbox } = edge.parts;

  const ingressDeps = {
    bot: telegram.bot,
    inbox,
    clock,
    log,
    // The command menu goes up once Telegram answers, however long that takes.
    onConnected: () => background(log, 'tg_set_commands_failed', registerCommands()),
    onEvent: (event: InboundEvent) => pipeline.accept(event),
    ...(options.onFatal ? { onStopped: options.onFatal } : {}),
  };
  const ingress = config.telegram.webhook
    ? createWebhookIngress({ ...ingressDeps, webhook: config.telegram.webhook })
    : createIngress(ingressDeps);

  // The dashboard reads over its own read-only connection (the core made the database).
  const reader = openCoreReader(config.home)!;
  const dashboard = createDashboard({
    db: reader.db,
    catalog: core.catalog,
    config: {
      port: config.dashboard.port,
      token: config.dashboard.token,
      caps: config.quota,
      timezone: config.timezone,
    },
    clock,
    log,
    health: () => health({ sqlite: store.sqlite, clock, ingress }),
  });

  async function registerCommands(): Promise<void> {
    try {
      await telegram.setCommands(pipeline.menu());
    } catch (error) {
      log.warn({ event: 'tg_set_commands_failed', err: error }, 'could not register commands');
    }
  }

  return {
    log,
    store,

    async start(): Promise<void> {
      log.info(
        {
          event: 'satchel_starting',
          provider: core.model.provider,
          model: core.model.model,
          packs: core.packs.list().map((p) => p.name),
        },
        'starting',
      );
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
      if (config.telegram.allowedUserIds.length === 0)
        log.warn(
          { event: 'allowlist_empty' },
          'ALLOWED_USER_IDS is empty, so every sender will be denied. Add your numeric ' +
            'Telegram user id (comma-separated for several) and restart; a denied ' +
            "sender's id is in the tg_auth_denied log line.",
        );
      background(log, 'outbox_resume_failed', core.outbox.resumeUnsent());
      // Up before polling, which may wait long for Telegram. The full address goes to
      // stderr, not the log: the log redacts the token.
      const board = await dashboard.start();
      if (board) {
        const announce = options.announce ?? ((line: string) => process.stderr.write(`${line}\n`));
        announce(`satchel dashboard: ${board.url}`);
      }
      await ingress.start();
      core.scheduler.start();
      log.info({ event: 'satchel_started' }, 'polling');
    },

    /**
     * Stops polling, lets running turns finish and outboxes flush for at most 10 s together,
     * then closes the databases. What did not finish stays pending for the next start.
     */
    async stop(): Promise<void> {
      await core.stop(async () => {
        await dashboard.stop();
        await ingress.stop();
      });
      reader.close();
    },
  };
}

export type App = ReturnType<typeof createApp>;
