import path from 'node:path';
import type { pino } from 'pino';
import { createAgent } from './agent/agent.ts';
import type { RetryPolicy } from './agent/retry.ts';
import type { CoreConfig } from './config/config.ts';
import { type Clock, sleep, systemClock } from './core/clock.ts';
import { createEventBus } from './core/events.ts';
import type { Channel, FileSource, Logger } from './core/ports.ts';
import { createRedactor } from './core/redact.ts';
import { addressKey, type InboundEvent } from './core/types.ts';
import type { GateDecision } from './inbound/allowlist.ts';
import { createMediaInputs } from './inbound/media.ts';
import { createLogger } from './logging/logger.ts';
import { createOutbox, type OutboxDeps } from './outbound/outbox.ts';
import { streamModeFor } from './outbound/stream.ts';
import { loadPacks } from './packs/loader.ts';
import { createPackRegistry } from './packs/registry.ts';
import { createTranscriber } from './providers/groq-stt.ts';
import { createChatModel, createModelResolver } from './providers/index.ts';
import { createVisionModel } from './providers/vision.ts';
import { createRouter } from './routing/router.ts';
import { scheduledRun } from './scheduler/run.ts';
import { createScheduler } from './scheduler/scheduler.ts';
import { openCoreStore } from './store/client.ts';
import { createInboxRepo } from './store/inbox-repo.ts';
import { createJobRepo } from './store/job-repo.ts';
import { createOutboxRepo } from './store/outbox-repo.ts';
import { createSessionRepo } from './store/session-repo.ts';
import { createAskRegistry } from './tools/asks.ts';
import { createPipeline } from './turn/pipeline.ts';
import { createCalendar } from './usage/calendar.ts';
import { createLedger } from './usage/ledger.ts';
import { createQuotaGate } from './usage/quota.ts';
import { createTotals } from './usage/totals.ts';

/** How long running turns may take to finish on shutdown. */
const SHUTDOWN_GRACE_MS = 10_000;
/** After the grace, how long aborted turns and calls already on the wire may take to end. */
const SETTLE_AFTER_ABORT_MS = 500;

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
  /** Outbox timings (tests shorten the retry waits). */
  outbox?: Pick<OutboxDeps, 'retryDelaysMs' | 'stallDelaysMs'>;
}

/** The chat platform a core serves: how it sends, where users' files come from, who may talk. */
export interface Edge {
  channel: Channel;
  files: FileSource;
  /** The allowlist for people's updates; without it every update is denied silently. */
  checkSender?(event: InboundEvent): GateDecision;
}

export interface CoreEdge {
  /** The platform's secrets (its token), kept out of logs and stored text. */
  secrets?: readonly (string | undefined)[];
  /** Builds the platform side once the logger exists. */
  connect(deps: { log: Logger; clock: Clock }): Edge;
}

/**
 * Everything satchel is apart from the chat platform it talks to: logging, the stores, the
 * packs, the providers, the agent, the turn pipeline and the scheduler, wired to one channel.
 * The Telegram bot (app.ts) and `satchel chat` (chat-app.ts) are each this plus their ingress.
 * Nothing runs until `resume` and `scheduler.start`; `stop` shuts it all down.
 */
export function createCore(config: CoreConfig, edge: CoreEdge, options: CoreOptions = {}) {
  const clock = options.clock ?? systemClock;
  const secrets = [
    ...(edge.secrets ?? []),
    config.providers.openai.apiKey,
    config.providers.groq.apiKey,
    config.providers.gemini.apiKey,
    config.dashboard.token,
  ];
  const redact = createRedactor(secrets);
  const log: Logger = createLogger({
    level: config.logLevel,
    secrets,
    format: config.logFormat,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const { channel, files, checkSender } = edge.connect({ log, clock });
  const store = openCoreStore(config.home);
  const transaction = <T>(fn: () => T): T => store.db.transaction(() => fn());
  const outbox = createOutbox({
    repo: createOutboxRepo(store.db),
    channel,
    clock,
    log,
    redact,
    ...options.outbox,
  });
  const inbox = createInboxRepo(store.db);
  const sessions = createSessionRepo(store.db, redact);
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
  const packs = createPackRegistry(loaded.packs, config.home, {
    onSkipped: (pack, error) =>
      log.error(
        { event: 'pack_invalid', pack: pack.name, problems: error.problems },
        `pack skipped: ${error.message}`,
      ),
  });
  const calendar = createCalendar(config.timezone);
  const totals = createTotals(store.db);
  const quota = createQuotaGate({ caps: config.quota, totals, calendar, clock, log });
  const ledger = createLedger({ db: store.db, clock, calendar, redact });
  const media = createMediaInputs({
    files,
    transcriber: createTranscriber(config),
    vision: createVisionModel(config),
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
  const modelFor = createModelResolver(config, model);
  // The scheduler runs only this channel's jobs: another process serves the others.
  const jobs = createJobRepo(store.db, {
    timezone: config.timezone,
    platform: channel.platform,
    maxJobs: config.maxJobs,
  });
  const router = createRouter({
    sessions,
    packs,
    clock,
    log,
    // A conversation bound to a pack gets the pack's manifest jobs (after its turn's model
    // call has gone out: the sync reads every conversation).
    onBound: () => scheduler.syncSoon(),
  });
  const pipeline = createPipeline({
    clock,
    log,
    transaction,
    acks: {
      update: (updateIds, now) => inbox.markDone(updateIds, now),
      job: (jobId, dueAt, now) => jobs.finishRun(jobId, dueAt, now),
    },
    // People are gated; a scheduled job or a line typed in the terminal is the owner's own.
    gate: (event) =>
      event.origin.source === 'update' ? (checkSender?.(event) ?? 'deny-silently') : 'allow',
    batchWindowMs: config.batchWindowMs,
    outbox,
    router,
    packs,
    events,
    totals,
    calendar,
    caps: config.quota,
    model: model.info,
    media,
    modelFor: (pack) => modelFor(pack?.manifest.model),
    // Photos go inline only when whoever answers can see them (the fallback too).
    fallbackAcceptsImages: fallback?.info.acceptsImages ?? true,
    asks: createAskRegistry(clock),
    jobs,
    sessions,
    schedule: {
      describe: (address) => scheduler.describe(address),
      next: (address) => scheduler.next(address),
    },
    agent: createAgent({
      model,
      fallback,
      sessions,
      ledger,
      quota,
      clock,
      log,
      ...(options.historyBudgetTokens ? { historyBudgetTokens: options.historyBudgetTokens } : {}),
      turnTimeoutMs: config.turnTimeoutMs,
      ...(options.modelRetry ? { retry: options.modelRetry } : {}),
    }),
    timezone: config.timezone,
    streamMode: (chatType) => streamModeFor(channel, chatType),
    // Button answers and topics count against the global limit like every call.
    answerButton: async (callbackId, notice) => {
      const answer = channel.answerCallback?.bind(channel);
      if (!answer) return;
      const to = { platform: channel.platform, chatId: 0 };
      await outbox.callOptional(to, 'answerCallback', () => answer(callbackId, notice));
    },
    createTopic: channel.createTopic
      ? (chatId, name) =>
          outbox.call({ platform: channel.platform, chatId }, () =>
            channel.createTopic!(chatId, name),
          )
      : undefined,
  });
  const scheduler = createScheduler({
    jobs,
    clock,
    log,
    timezone: config.timezone,
    routes: () => router.boundConversations().filter((r) => r.platform === channel.platform),
    manifestJobs: (pack) => packs.get(pack)?.manifest.cron ?? [],
    run: (job, started) => pipeline.runJob(scheduledRun(job, started)),
    onRan: (ran) => events.emit({ type: 'job_run', ...ran }),
  });

  return {
    clock,
    log,
    store,
    channel,
    inbox,
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
      over.abort();
      outbox.close();
      packs.close();
      store.close();
      log.info({ event: 'satchel_stopped', clean: done }, 'stopped');
    },
  };
}

export type Core = ReturnType<typeof createCore>;
