import path from 'node:path';
import { createAgent } from '../agent/agent.ts';
import type { CoreConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import { createEventBus } from '../core/events.ts';
import { originKey } from '../core/origin.ts';
import type { Logger } from '../core/ports.ts';
import { addressKey } from '../core/types.ts';
import { createMediaInputs } from '../inbound/media.ts';
import { createOutboxes } from '../outbound/outboxes.ts';
import { createRouter } from '../routing/router.ts';
import { createTopicGone } from '../turn/chat-changes.ts';
import { createCalendar } from '../usage/calendar.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { createLedger } from '../usage/ledger.ts';
import { createQuotaGate } from '../usage/quota.ts';
import { createTotals } from '../usage/totals.ts';
import type { CoreOptions } from './options.ts';
import type { Packs } from './packs.ts';
import type { Providers } from './providers.ts';
import type { Logging, Stores } from './stores.ts';

interface Base {
  config: CoreConfig;
  clock: Clock;
  log: Logger;
  stores: Stores;
}

/** One outbox per channel, with a topic gone (or back) pausing (or resuming) its jobs. */
export function buildOutbox(base: Base, redact: Logging['redact'], options: CoreOptions) {
  const { clock, log, stores } = base;
  const topics = createTopicGone({ log, clock, jobs: stores.jobs });
  return createOutboxes({
    repo: stores.outboxRepo,
    channels: stores.channels,
    clock,
    log,
    redact,
    threadGone: topics.gone,
    threadBack: topics.back,
    ...options.outbox,
  });
}

/** What each paid call costs and what is left: the ledger, the running totals, the caps. */
export function buildUsage(base: Base, catalog: ModelCatalog, redact: Logging['redact']) {
  const { config, clock, log, stores } = base;
  const calendar = createCalendar(config.timezone);
  const ledger = createLedger({ db: stores.store.db, clock, calendar, catalog, redact });
  // The gate and the footer read the ledger with every row booked so far (recordSoon's too).
  const totals = createTotals(stores.store.db, { beforeRead: ledger.flush });
  const quota = createQuotaGate({
    caps: config.quota,
    totals,
    calendar,
    clock,
    log,
    catalog,
    unknownPrice: config.models.unknownPrice,
    personCaps: (person) => stores.people.capsOf(person, config.personCaps),
  });
  return { calendar, totals, quota, ledger };
}

export type Usage = ReturnType<typeof buildUsage>;

/**
 * What a turn runs on: the event bus (a completed turn is logged), the media inputs (files
 * fetched by their edge), the router (a bound conversation is announced) and the agent.
 */
export function buildAgent(
  base: Base,
  parts: { providers: Providers; packs: Packs; usage: Usage; defaultPack: string | undefined },
  options: CoreOptions,
) {
  const { config, clock, log, stores } = base;
  const { providers, packs, usage, defaultPack } = parts;
  const media = createMediaInputs({
    files: (platform) => stores.edges.get(platform)?.files,
    transcriber: providers.transcriber,
    vision: providers.vision,
    quota: usage.quota,
    ledger: usage.ledger,
    clock,
    log,
    mediaDir: path.join(config.home, 'media'),
    // The sender's channel shows the words in the voice message (the web chat's bubble).
    heard: (event, transcript) =>
      stores.edges
        .get(event.address.platform)
        ?.channel?.showTranscript?.(event.address, originKey(event.origin), transcript),
  });
  const events = createEventBus((error, event) =>
    log.error({ event: 'event_listener_failed', type: event.type, err: error }, 'listener failed'),
  );
  events.on('turn_completed', ({ type, address, ...fields }) =>
    log.info({ event: type, address: addressKey(address), ...fields }, 'turn completed'),
  );
  const router = createRouter({
    sessions: stores.sessions,
    packs: packs.packs,
    clock,
    log,
    onBound: (address, pack) => events.emit({ type: 'conversation_bound', address, pack }),
    defaultPack,
  });
  const agent = createAgent({
    model: providers.model,
    fallback: providers.fallback,
    sessions: stores.sessions,
    ledger: usage.ledger,
    quota: usage.quota,
    clock,
    log,
    timezone: config.timezone,
    ...(options.historyBudgetTokens ? { historyBudgetTokens: options.historyBudgetTokens } : {}),
    turnTimeoutMs: config.turnTimeoutMs,
    ...(options.modelRetry ? { retry: options.modelRetry } : {}),
  });
  return { media, events, router, agent };
}

export type Turning = ReturnType<typeof buildAgent>;
