import path from 'node:path';
import type { pino } from 'pino';
import { createAgent } from './agent/agent.ts';
import type { RetryPolicy } from './agent/retry.ts';
import type { CoreConfig } from './config/config.ts';
import { type Clock, sleep, systemClock } from './core/clock.ts';
import type { Edge } from './core/edge.ts';
import { createEventBus } from './core/events.ts';
import type { ChatModel, Logger } from './core/ports.ts';
import { createRedactor } from './core/redact.ts';
import { addressKey } from './core/types.ts';
import { createMediaInputs } from './inbound/media.ts';
import { createLogger } from './logging/logger.ts';
import { mcpServersByPack } from './mcp/config.ts';
import { DEFAULT_CLOSE_GRACE_MS, stopBoundMs } from './mcp/connection.ts';
import { createDefaultHub } from './mcp/default-hub.ts';
import type { McpHub } from './mcp/types.ts';
import { createChannelCalls } from './outbound/channel-calls.ts';
import type { OutboxDeps } from './outbound/outbox.ts';
import { createOutboxes } from './outbound/outboxes.ts';
import { loadPacks } from './packs/loader.ts';
import { createPackRegistry } from './packs/registry.ts';
import { missingSettingsMessage, packSettings } from './packs/settings.ts';
import { createChatModel, createTranscriber } from './providers/index.ts';
import { createModelChoice } from './providers/model-choice.ts';
import { providerSecrets } from './providers/registry.ts';
import { createVisionModel } from './providers/vision.ts';
import { createRouter } from './routing/router.ts';
import { createJobListing } from './scheduler/describe.ts';
import { createJobEdge } from './scheduler/job-edge.ts';
import { createScheduler } from './scheduler/scheduler.ts';
import { createChatMoves } from './store/chat-moves.ts';
import { type Db, openCoreStore } from './store/client.ts';
import { createGrantRepo } from './store/grant-repo.ts';
import { createJobRepo } from './store/job-repo.ts';
import { createMcpPinRepo } from './store/mcp-pin-repo.ts';
import { createMessageSearch } from './store/message-search.ts';
import { createOutboxRepo } from './store/outbox-repo.ts';
import { createSessionRepo } from './store/session-repo.ts';
import { createAskRegistry } from './tools/asks.ts';
import { createSearchProvider } from './tools/search/providers.ts';
import {
  type Resolve,
  systemResolve,
  WEB_LIMITS,
  type WebLimits,
} from './tools/web/guarded-get.ts';
import { createTopicGone } from './turn/chat-changes.ts';
import { createPipeline } from './turn/pipeline.ts';
import { createCalendar } from './usage/calendar.ts';
import type { ModelCatalog } from './usage/catalog.ts';
import { loadModelCatalog } from './usage/catalog-file.ts';
import { createUsageFooter } from './usage/footer.ts';
import { createLedger } from './usage/ledger.ts';
import { createQuotaGate } from './usage/quota.ts';
import { createTotals } from './usage/totals.ts';

/** How long running turns may take to finish on shutdown. */
const SHUTDOWN_GRACE_MS = 10_000;
/** After the grace, how long aborted turns and calls already on the wire may take to end. */
const SETTLE_AFTER_ABORT_MS = 500;
/**
 * How long the MCP servers may take to stop when the grace is used up: the default hub's
 * grace and its wait after SIGKILL, so a server that ignores SIGTERM is still killed.
 */
export const MCP_CLOSE_MS = stopBoundMs(DEFAULT_CLOSE_GRACE_MS);

export interface CoreOptions {
  clock?: Clock;
  /** Where logs go; stdout when not given. */
  logDestination?: pino.DestinationStream;
  /** History size (estimated tokens) above which a session is compacted. */
  historyBudgetTokens?: number;
  /** Retries of a failing model call (tests shorten the waits). */
  modelRetry?: RetryPolicy;
  /** How long shutdown waits for running turns and outboxes (default 10 s). */
  shutdownGraceMs?: number;
  /**
   * The chat model instead of the configured one: the turn stages' tests script it in
   * process, with no HTTP.
   */
  chatModel?: ChatModel;
  /** web_fetch's resolver and limits (tests resolve names themselves and shorten the limits). */
  web?: { resolve?: Resolve; limits?: Partial<WebLimits> };
  /** Outbox timings (tests shorten the retry waits). */
  outbox?: Pick<OutboxDeps, 'retryDelaysMs' | 'stallDelaysMs'>;
  /** The model catalog, when the caller already read it (else read from SATCHEL_MODELS). */
  catalog?: ModelCatalog;
  /** The MCP hub instead of the real one (the turn stages' tests fake it in process). */
  mcpHub?: McpHub;
}

/** An edge as the root lists it: its secrets, then how it connects once the core exists. */
export interface EdgeFactory {
  /** The platform's secrets (its token), kept out of logs and stored text. */
  readonly secrets?: readonly (string | undefined)[];
  /** Builds the edge once the logger and the core database exist (an inbox lives there). */
  connect(deps: { log: Logger; clock: Clock; db: Db }): Edge;
}

/**
 * Everything satchel is apart from the platforms it talks to: logging, the stores, the
 * packs, the providers, the agent, the turn pipeline and the scheduler (an edge of its own),
 * wired to the edges it is given. Replies, button answers, topics and streaming go to the
 * edge whose platform the conversation is on. The Telegram bot and the web chat (app.ts)
 * and `satchel chat` (chat-app.ts) are each this plus their ingress. Nothing runs until
 * `resume` and `scheduler.start`; `stop` shuts it all down.
 */
export function createCore(
  config: CoreConfig,
  factories: readonly EdgeFactory[],
  options: CoreOptions = {},
) {
  const clock = options.clock ?? systemClock;
  const catalog = options.catalog ?? loadModelCatalog(config);
  const loaded = loadPacks(config.packDirs);
  const settings = packSettings(loaded.packs, config.packSettings);
  const secrets = [
    ...factories.flatMap((f) => f.secrets ?? []),
    ...providerSecrets(config.providers),
    config.dashboard.token,
    ...[config.web.search?.braveApiKey, config.web.search?.tavilyApiKey].filter(
      (key): key is string => key !== undefined,
    ),
    ...settings.secrets,
  ];
  const redact = createRedactor(secrets);
  const log: Logger = createLogger({
    level: config.logLevel,
    secrets,
    format: config.logFormat,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const store = openCoreStore(config.home);
  const transaction = <T>(fn: () => T): T => store.db.transaction(() => fn());
  const edges = new Map<string, Edge>();
  for (const factory of factories) {
    const edge = factory.connect({ log, clock, db: store.db });
    edges.set(edge.platform, edge);
  }
  const channels = [...edges.values()].flatMap((edge) => (edge.channel ? [edge.channel] : []));
  // The scheduler runs only the jobs of this process's channels: another process (the
  // terminal chat) serves the others.
  const jobs = createJobRepo(store.db, {
    timezone: config.timezone,
    platforms: channels.map((c) => c.platform),
    maxJobs: config.maxJobs,
  });
  const outboxRepo = createOutboxRepo(store.db);
  const topics = createTopicGone({ log, clock, jobs });
  const outbox = createOutboxes({
    repo: outboxRepo,
    channels,
    clock,
    log,
    redact,
    threadGone: topics.gone,
    threadBack: topics.back,
    ...options.outbox,
  });
  const channelOf = (platform: string) => edges.get(platform)?.channel;
  const sessions = createSessionRepo(store.db, redact);
  const model =
    options.chatModel ??
    createChatModel(config, catalog, config.llm.provider, config.llm.model, log);
  const fallback = config.llm.fallback
    ? createChatModel(config, catalog, config.llm.fallback.provider, config.llm.fallback.model, log)
    : undefined;
  for (const { pack, missing } of settings.skipped)
    log.error(
      { event: 'pack_invalid', pack: pack.name, missing },
      `pack skipped: ${missingSettingsMessage(pack.name, missing)}`,
    );
  for (const error of loaded.errors)
    log.error(
      { event: 'pack_invalid', problems: error.problems },
      `pack skipped: ${error.message}`,
    );
  const packs = createPackRegistry(settings.packs, config.home, {
    onSkipped: (pack, error) =>
      log.error(
        { event: 'pack_invalid', pack: pack.name, problems: error.problems },
        `pack skipped: ${error.message}`,
      ),
  });
  const mcpHub =
    options.mcpHub ?? createDefaultHub(log, secrets, { clock, pins: createMcpPinRepo(store.db) });
  const mcpServers = mcpServersByPack(packs.list(), settings.values, (pack, { server, reason }) =>
    log.warn(
      { event: 'mcp_server_unavailable', pack, server, reason },
      `MCP server ${server} of pack ${pack} is off: ${reason}`,
    ),
  );
  const calendar = createCalendar(config.timezone);
  const totals = createTotals(store.db);
  const quota = createQuotaGate({
    caps: config.quota,
    totals,
    calendar,
    clock,
    log,
    catalog,
    unknownPrice: config.models.unknownPrice,
  });
  const ledger = createLedger({ db: store.db, clock, calendar, catalog, redact });
  const media = createMediaInputs({
    files: (platform) => edges.get(platform)?.files,
    transcriber: createTranscriber(config),
    vision: createVisionModel(config, catalog, log),
    quota,
    ledger,
    clock,
    log,
    mediaDir: path.join(config.home, 'media'),
  });
  const events = createEventBus((error, event) =>
    log.error({ event: 'event_listener_failed', type: event.type, err: error }, 'listener failed'),
  );
  events.on('turn_completed', ({ type, address, ...fields }) =>
    log.info({ event: type, address: addressKey(address), ...fields }, 'turn completed'),
  );
  const models = createModelChoice(config, catalog, model, log);
  const router = createRouter({
    sessions,
    packs,
    clock,
    log,
    onBound: (address, pack) => events.emit({ type: 'conversation_bound', address, pack }),
  });
  const agent = createAgent({
    model,
    fallback,
    sessions,
    ledger,
    quota,
    clock,
    log,
    timezone: config.timezone,
    ...(options.historyBudgetTokens ? { historyBudgetTokens: options.historyBudgetTokens } : {}),
    turnTimeoutMs: config.turnTimeoutMs,
    ...(options.modelRetry ? { retry: options.modelRetry } : {}),
  });
  const pipeline = createPipeline({
    runtime: { clock, log, transaction, timezone: config.timezone },
    conversing: {
      router,
      packs,
      sessions,
      moves: createChatMoves(store.db),
      groupReply: config.groupReply,
    },
    delivery: {
      outbox,
      ackReaction: config.ackReaction,
      botMessage: (to, messageId) => outboxRepo.sentText(to, messageId),
      acks: (platform) => edges.get(platform)?.acknowledge,
      ...createChannelCalls(channelOf, outbox),
    },
    turns: {
      agent,
      media,
      models,
      usageFooter: createUsageFooter({ db: store.db, totals, calendar }),
      // Photos go inline only when whoever answers can see them (the fallback too).
      fallbackAcceptsImages: fallback?.info.acceptsImages ?? true,
      asks: createAskRegistry(clock),
      messages: createMessageSearch(store.sqlite),
      jobs,
      events,
      mcp: { hub: mcpHub, servers: mcpServers },
      trust: {
        policy: config.trust.approval,
        timeoutMs: config.trust.approvalTimeoutMs,
        grants: createGrantRepo(store.db),
        owner: (to) => edges.get(to.platform)?.owner,
      },
      web: {
        fetch: {
          allowHosts: config.web.allowHosts,
          maxChars: config.web.maxChars,
          resolve: options.web?.resolve ?? systemResolve,
          limits: { ...WEB_LIMITS, ...options.web?.limits },
          clock,
        },
        search: {
          provider: config.web.search && createSearchProvider(config.web.search),
          quota,
          ledger,
          clock,
        },
      },
    },
    reports: {
      totals,
      calendar,
      caps: config.quota,
      models,
      schedule: createJobListing({ jobs, clock, timezone: config.timezone }),
    },
    // An edge that talks to strangers gates them; the others' events are the owner's own.
    gate: (event) => edges.get(event.origin.platform)?.gate?.(event) ?? 'allow',
    batchWindowMs: config.batchWindowMs,
  });
  const jobEdge = createJobEdge({
    jobs,
    events,
    accept: (event) => pipeline.accept(event),
    chatType: (to) => edges.get(to.platform)?.chatType?.(to) ?? 'private',
  });
  edges.set(jobEdge.edge.platform, jobEdge.edge);
  const scheduler = createScheduler({
    jobs,
    clock,
    log,
    timezone: config.timezone,
    routes: () => router.boundConversations().filter((r) => channelOf(r.platform ?? '')),
    manifestJobs: (pack) => packs.get(pack)?.manifest.cron ?? [],
    run: (job, started) => jobEdge.run(job, started),
    onRan: (ran) => events.emit({ type: 'job_run', ...ran }),
  });
  // A conversation bound to a pack gets the pack's manifest jobs (after its turn's model
  // call has gone out: the sync reads every conversation).
  events.on('conversation_bound', () => scheduler.syncSoon());

  return {
    clock,
    log,
    store,
    catalog,
    edges,
    outbox,
    packs,
    router,
    events,
    model: model.info,
    pipeline,
    scheduler,

    /**
     * Stops the intake first (`stopIntake`: polling, the terminal), then lets running turns
     * finish and outboxes flush for at most 10 s together, then closes the databases. What
     * did not finish stays pending for the next start.
     */
    async stop(stopIntake: () => Promise<void>): Promise<void> {
      log.info({ event: 'satchel_stopping' }, 'stopping');
      const deadline = clock.now() + (options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
      // The waits end with the shutdown, so no timer outlives it (the chat exits by itself).
      const over = new AbortController();
      const timeUp = (ms: number) =>
        sleep(clock, Math.max(0, ms), over.signal).then(
          () => false,
          () => false,
        );
      const within = (work: Promise<unknown>, ms = deadline - clock.now()) =>
        Promise.race([work.then(() => true), timeUp(ms)]);
      await within(stopIntake());
      const schedulerStopped = scheduler.stop();
      pipeline.close();
      const done =
        (await within(pipeline.idle())) &&
        (await within(schedulerStopped)) &&
        (await within(outbox.idle()));
      if (!done) {
        pipeline.abortAll();
        outbox.close();
        // Aborted work ends at once; a call already on the wire gets a moment to land.
        const settling = Promise.all([pipeline.idle(), schedulerStopped, outbox.idle()]);
        await within(settling, SETTLE_AFTER_ABORT_MS);
      }
      // The servers stop after the turns that use them; their processes get a bounded wait.
      await within(mcpHub.close(), Math.max(deadline - clock.now(), MCP_CLOSE_MS));
      over.abort();
      outbox.close();
      packs.close();
      store.close();
      log.info({ event: 'satchel_stopped', clean: done }, 'stopped');
    },
  };
}

export type Core = ReturnType<typeof createCore>;
