import path from 'node:path';
import type { CoreConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { createChannelCalls } from '../outbound/channel-calls.ts';
import type { createOutboxes } from '../outbound/outboxes.ts';
import { createActionKeyboards } from '../packs/action-keyboards.ts';
import { createJobListing } from '../scheduler/describe.ts';
import { createAnsweredCheck, createStoredCheck } from '../store/answered.ts';
import { createChatMoves } from '../store/chat-moves.ts';
import { createGrantRepo } from '../store/grant-repo.ts';
import { createKeyboardRepo } from '../store/keyboard-repo.ts';
import { createMessageSearch } from '../store/message-search.ts';
import { createAskRegistry } from '../tools/asks.ts';
import { createSearchProvider } from '../tools/search/providers.ts';
import { systemResolve, WEB_LIMITS } from '../tools/web/guarded-get.ts';
import { createPipeline } from '../turn/pipeline.ts';
import { createSpokenFiles } from '../turn/spoken-files.ts';
import { createVoiceReplies } from '../turn/voice-reply.ts';
import { createUsageFooter } from '../usage/footer.ts';
import { jobCosts } from '../usage/job-usage.ts';
import { personCosts } from '../usage/person-usage.ts';
import type { CoreOptions } from './options.ts';
import type { Packs } from './packs.ts';
import type { Providers } from './providers.ts';
import type { Turning, Usage } from './services.ts';
import type { Stores } from './stores.ts';

export interface PipelineParts {
  config: CoreConfig;
  clock: Clock;
  log: Logger;
  stores: Stores;
  outbox: ReturnType<typeof createOutboxes>;
  providers: Providers;
  packs: Packs;
  usage: Usage;
  turning: Turning;
}

/** The turn pipeline, each stage given the services it uses (turn/services.ts). */
export function buildPipeline(parts: PipelineParts, options: CoreOptions) {
  const { config, clock, log, stores, outbox, providers, packs, usage, turning } = parts;
  const { edges, jobs } = stores;
  const db = stores.store.db;
  const spokenFiles = createSpokenFiles({
    dir: path.join(config.home, 'media', 'voice'),
    clock,
    log,
    pending: () => stores.outboxRepo.pendingFiles(),
  });
  // What an earlier run left and no pending row names goes now, not at the next voice note.
  spokenFiles.sweep();
  return createPipeline({
    runtime: { clock, log, transaction: stores.transaction, timezone: config.timezone },
    conversing: {
      router: turning.router,
      packs: packs.packs,
      sessions: stores.sessions,
      moves: createChatMoves(db),
      groupReply: config.groupReply,
      people: stores.people,
    },
    delivery: {
      outbox,
      ackReaction: config.ackReaction,
      botMessage: (to, messageId) => stores.outboxRepo.sentText(to, messageId),
      acks: (platform) => edges.get(platform)?.acknowledge,
      channelName: (to) => stores.profileOf(to.platform).name,
      turnSource: (to) => stores.profileOf(to.platform).source,
      ...createChannelCalls(stores.channelOf, outbox),
    },
    turns: {
      agent: turning.agent,
      media: turning.media,
      models: providers.models,
      usageFooter: createUsageFooter({ db, totals: usage.totals, calendar: usage.calendar }),
      voice: createVoiceReplies({
        speaker: providers.speaker,
        fallback: config.voice.reply,
        setting: (to) => turning.router.voiceReply(to),
        plays: (to) => stores.channelOf(to.platform)?.capabilities.voice ?? false,
        quota: usage.quota,
        ledger: usage.ledger,
        outbox,
        clock,
        log,
        files: spokenFiles,
      }),
      // Photos go inline only when whoever answers can see them (the fallback too).
      fallbackAcceptsImages: providers.fallback?.info.acceptsImages ?? true,
      asks: createAskRegistry(clock),
      keyboards: createActionKeyboards({ repo: createKeyboardRepo(db), clock }),
      messages: createMessageSearch(stores.store.sqlite),
      answered: createAnsweredCheck(stores.store.sqlite),
      stored: createStoredCheck(stores.store.sqlite),
      jobs,
      idleJobs: stores.idleJobs,
      events: turning.events,
      mcp: { hub: packs.mcpHub, servers: packs.mcpServers },
      trust: {
        policy: config.trust.approval,
        timeoutMs: config.trust.approvalTimeoutMs,
        grants: createGrantRepo(db),
        // The owner as recorded once (SPEC §19), else as the edge names them; a gated edge
        // that names no owner (no allowlist) has nobody who may approve ('' is no sender).
        owner: (to) => {
          const edge = edges.get(to.platform);
          return stores.people.ownerOn(to.platform) ?? edge?.owner ?? (edge?.gate ? '' : undefined);
        },
        sessions: stores.sessions,
      },
      pairing: stores.pairing,
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
          quota: usage.quota,
          ledger: usage.ledger,
          clock,
        },
      },
    },
    reports: {
      totals: usage.totals,
      calendar: usage.calendar,
      caps: config.quota,
      models: providers.models,
      people: {
        costs: (now) => personCosts(db, usage.calendar.dayOf(now)),
        defaultCapUsd: config.personCaps.dailyUsd,
      },
      schedule: createJobListing({
        jobs,
        clock,
        timezone: config.timezone,
        costs: (ids, now) => jobCosts(db, ids, usage.calendar.dayOf(now)),
        idleDays: config.jobIdleDays,
      }),
    },
    // An edge that talks to strangers gates them; the others' events are the owner's own.
    gate: (event) => edges.get(event.origin.platform)?.gate?.(event) ?? 'allow',
    strangers: () => [...edges.values()].some((edge) => edge.gate !== undefined),
    batchWindowMs: config.batchWindowMs,
    queueMode: config.queueMode,
  });
}

export type Pipeline = ReturnType<typeof buildPipeline>;
