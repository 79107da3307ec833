import type { Config } from './config/config.ts';
import { type EnvFileProblem, formatEnvProblem } from './config/env-lint.ts';
import { background } from './core/background.ts';
import type { InboundEvent } from './core/types.ts';
import { type Core, type CoreOptions, createCore } from './core-app.ts';
import { createDashboard } from './dashboard/server.ts';
import { health } from './ops/health.ts';
import { modelsInUse } from './providers/models-in-use.ts';
import { openCoreReader } from './store/read-only.ts';
import { TELEGRAM_PLATFORM } from './telegram/channel.ts';
import { telegramEdge } from './telegram/edge.ts';
import { createIngress } from './telegram/ingress.ts';
import { createWebhookIngress } from './telegram/webhook.ts';
import { warnUnknownPrices } from './usage/unknown-prices.ts';
import { webEdge } from './web/edge.ts';
import { welcomeOf } from './web/welcome.ts';

export interface AppOptions extends CoreOptions {
  /** Where the dashboard's and the chat's addresses (token included) are printed; stderr. */
  announce?: (line: string) => void;
  /** Polling stopped for good (Telegram refused the token, or another instance polls). */
  onFatal?: (error: unknown) => void;
  /** The mistakes found in `.env` (config/env-lint.ts): each is a warning at start. */
  envFileProblems?: readonly EnvFileProblem[];
}

/**
 * Wires satchel: the core (core-app.ts) on its edges — the web chat (SPEC §16) always, and
 * the Telegram bot, with the allowlist and polling in front, when TELEGRAM_BOT_TOKEN is set.
 * Without it nothing calls the Bot API. Nothing runs until `start`.
 */
export function createApp(config: Config, options: AppOptions = {}) {
  const web = webEdge({ ownerId: config.telegram.allowedUserIds[0] ?? 1 });
  const bot = config.telegram.token
    ? telegramEdge({
        token: config.telegram.token,
        apiRoot: config.telegram.apiRoot,
        allowedUserIds: config.telegram.allowedUserIds,
        webhookSecret: config.telegram.webhook?.secret,
      })
    : undefined;
  // The edges: a new channel is one more entry here.
  const core = createCore(config, [web.factory, ...(bot ? [bot.factory] : [])], options);
  const { clock, log, store, pipeline } = core;
  const chat = web.serve({
    accept: (event) => pipeline.accept(event),
    full: (address) => pipeline.full(address),
    welcome: () =>
      welcomeOf(core.packs.list(), pipeline.menu(), core.router.activePack(web.address)),
  });
  const telegram =
    bot &&
    telegramIngress(bot, config, {
      log,
      clock,
      pipeline,
      outbox: core.outbox,
      onFatal: options.onFatal,
    });

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
    health: () => health({ sqlite: store.sqlite, clock, ingress: telegram?.ingress }),
    mounts: [chat.routes],
  });
  const announce = options.announce ?? ((line: string) => process.stderr.write(`${line}\n`));

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
          telegram: telegram !== undefined,
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
      if (!telegram)
        log.info(
          { event: 'telegram_off' },
          'TELEGRAM_BOT_TOKEN is not set: running the web chat and the dashboard alone ' +
            '(no Bot API call). Create a bot with @BotFather and set it to talk on Telegram too.',
        );
      else if (config.telegram.allowedUserIds.length === 0)
        log.warn(
          { event: 'allowlist_empty' },
          'ALLOWED_USER_IDS is empty, so every sender will be denied. Add your numeric ' +
            'Telegram user id (comma-separated for several) and restart; a denied ' +
            "sender's id is in the tg_auth_denied log line.",
        );
      background(log, 'outbox_resume_failed', core.outbox.resumeUnsent());
      chat.replay();
      // Up before polling, which may wait long for Telegram. The full addresses go to
      // stderr, not the log: the log redacts the token.
      const board = await dashboard.start();
      if (board) {
        announce(`satchel dashboard: ${board.url}`);
        announce(`satchel web chat: ${board.urlFor('/chat')}`);
        log.info({ event: 'web_chat_started', url: board.urlFor('/chat') }, 'web chat up');
      } else if (!telegram)
        log.error(
          { event: 'web_chat_unavailable' },
          'the web chat is off (see dashboard_port_in_use), and without TELEGRAM_BOT_TOKEN ' +
            'there is no other way in: free the port or set DASHBOARD_PORT, then restart',
        );
      await telegram?.ingress.start();
      core.scheduler.start();
      log.info({ event: 'satchel_started' }, telegram ? 'polling' : 'web chat only');
    },

    /**
     * Stops polling and the dashboard, lets running turns finish and outboxes flush for at
     * most 10 s together, then closes the databases. What did not finish stays pending for
     * the next start.
     */
    async stop(): Promise<void> {
      await core.stop(async () => {
        await dashboard.stop();
        await telegram?.ingress.stop();
      });
      reader.close();
    },
  };
}

/** Telegram's way in (long polling or the webhook), and its command menu once connected. */
function telegramIngress(
  bot: ReturnType<typeof telegramEdge>,
  config: Config,
  deps: Pick<Core, 'log' | 'clock' | 'pipeline' | 'outbox'> & { onFatal: AppOptions['onFatal'] },
) {
  const { log, pipeline, outbox } = deps;
  const { adapter, inbox } = bot.parts;
  async function registerCommands(): Promise<void> {
    try {
      await adapter.setCommands(pipeline.menu());
    } catch (error) {
      log.warn({ event: 'tg_set_commands_failed', err: error }, 'could not register commands');
    }
  }
  const ingressDeps = {
    bot: adapter.bot,
    inbox,
    clock: deps.clock,
    log,
    // The command menu goes up once Telegram answers, however long that takes.
    onConnected: () => background(log, 'tg_set_commands_failed', registerCommands()),
    // Telegram answers again after an outage: replies held back go out now, not at the end
    // of their backoff wait (SPEC §4: within 3 s).
    onReachable: () => outbox.retryNow(TELEGRAM_PLATFORM),
    onEvent: (event: InboundEvent) => pipeline.accept(event),
    ...(deps.onFatal ? { onStopped: deps.onFatal } : {}),
  };
  const ingress = config.telegram.webhook
    ? createWebhookIngress({ ...ingressDeps, webhook: config.telegram.webhook })
    : createIngress(ingressDeps);
  return { ingress };
}

export type App = ReturnType<typeof createApp>;
