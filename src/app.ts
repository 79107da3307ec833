import { Bot } from 'grammy';
import type { pino } from 'pino';
import { createAgent } from './agent/agent.ts';
import type { Config } from './config/config.ts';
import { type Clock, sleep, systemClock } from './core/clock.ts';
import type { Logger } from './core/ports.ts';
import { createAllowlist } from './inbound/allowlist.ts';
import { createLogger } from './logging/logger.ts';
import { createOutbox } from './outbound/outbox.ts';
import { loadPacks } from './packs/loader.ts';
import { createPackRegistry } from './packs/registry.ts';
import { createChatModel } from './providers/index.ts';
import { createRouter } from './routing/router.ts';
import { openCoreStore } from './store/client.ts';
import { createInboxRepo } from './store/inbox-repo.ts';
import { createJobRepo } from './store/job-repo.ts';
import { createOutboxRepo } from './store/outbox-repo.ts';
import { createSessionRepo } from './store/session-repo.ts';
import { createTelegramChannel } from './telegram/channel.ts';
import { createIngress } from './telegram/ingress.ts';
import { createAskRegistry } from './tools/asks.ts';
import { createCoordinator } from './turn/coordinator.ts';
import { createCalendar } from './usage/calendar.ts';
import { createLedger } from './usage/ledger.ts';
import { createQuotaGate } from './usage/quota.ts';
import { createTotals } from './usage/totals.ts';

/** How long running turns may take to finish on shutdown. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface AppOptions {
  clock?: Clock;
  /** Where logs go; stdout when not given. */
  logDestination?: pino.DestinationStream;
  /** History size (estimated tokens) above which a session is compacted. */
  historyBudgetTokens?: number;
  /** Polling stopped for good (Telegram refused the token, or another instance polls). */
  onFatal?: (error: unknown) => void;
}

/** Wires satchel together from its configuration. Nothing runs until `start`. */
export function createApp(config: Config, options: AppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const log: Logger = createLogger({
    level: config.logLevel,
    secrets: [
      config.telegram.token,
      config.providers.openai.apiKey,
      config.providers.groq.apiKey,
      config.providers.gemini.apiKey,
      config.dashboard.token,
    ],
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const store = openCoreStore(config.home);
  const transaction = <T>(fn: () => T): T => store.db.transaction(() => fn());
  const bot = new Bot(config.telegram.token, { client: { apiRoot: config.telegram.apiRoot } });
  const channel = createTelegramChannel(bot.api);
  const outbox = createOutbox({
    repo: createOutboxRepo(store.db),
    channel,
    clock,
    log,
  });
  const inbox = createInboxRepo(store.db);
  const sessions = createSessionRepo(store.db);
  const model = createChatModel(config, config.llm.provider, config.llm.model);
  const fallback = config.llm.fallback
    ? createChatModel(config, config.llm.fallback.provider, config.llm.fallback.model)
    : undefined;
  const loaded = loadPacks(config.packDirs);
  for (const error of loaded.errors)
    log.error(
      { event: 'pack_invalid', problems: error.problems },
      `pack skipped: ${error.message}`,
    );
  const packs = createPackRegistry(loaded.packs, config.home);
  const calendar = createCalendar(config.timezone);
  const totals = createTotals(store.db);
  const quota = createQuotaGate({ caps: config.quota, totals, calendar, clock, log });
  const coordinator = createCoordinator({
    clock,
    log,
    transaction,
    inbox,
    outbox,
    packs,
    sessions,
    totals,
    calendar,
    caps: config.quota,
    model: model.info,
    asks: createAskRegistry(clock),
    jobs: createJobRepo(store.db),
    router: createRouter({ sessions, clock, log }),
    agent: createAgent({
      model,
      fallback,
      sessions,
      ledger: createLedger({ db: store.db, clock, calendar }),
      quota,
      clock,
      log,
      transaction,
      ...(options.historyBudgetTokens ? { historyBudgetTokens: options.historyBudgetTokens } : {}),
    }),
    allowlist: createAllowlist(config.telegram.allowedUserIds, clock),
    batchWindowMs: config.batchWindowMs,
    timezone: config.timezone,
    channelCapabilities: channel.capabilities,
  });
  const ingress = createIngress({
    bot,
    inbox,
    clock,
    log,
    onUpdate: (update) => coordinator.handleUpdate(update),
    ...(options.onFatal ? { onStopped: options.onFatal } : {}),
  });

  async function registerCommands(): Promise<void> {
    try {
      await bot.api.setMyCommands(coordinator.menu());
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
          provider: model.info.provider,
          model: model.info.model,
          packs: packs.list().map((p) => p.name),
        },
        'starting',
      );
      void outbox.resumeUnsent();
      void registerCommands();
      await ingress.start();
      log.info({ event: 'satchel_started' }, 'polling');
    },

    /** Stops polling, lets running turns finish (≤ 10 s), flushes outboxes, closes the DB. */
    async stop(): Promise<void> {
      log.info({ event: 'satchel_stopping' }, 'stopping');
      await ingress.stop();
      coordinator.close();
      const finished = await Promise.race([
        coordinator.idle().then(() => true),
        sleep(clock, SHUTDOWN_GRACE_MS).then(() => false),
      ]);
      if (!finished) {
        coordinator.abortAll();
        await coordinator.idle();
      }
      await Promise.race([outbox.idle(), sleep(clock, SHUTDOWN_GRACE_MS)]);
      packs.close();
      store.close();
      log.info({ event: 'satchel_stopped' }, 'stopped');
    },
  };
}

export type App = ReturnType<typeof createApp>;
