import type { CoreConfig } from './config/config.ts';
import { systemClock } from './core/clock.ts';
import type { EdgeFactory } from './core/edge.ts';
import type { Address } from './core/types.ts';
import { ingressPort, openIngresses } from './core-app/edges.ts';
import { buildJobs } from './core-app/jobs.ts';
import type { CoreOptions } from './core-app/options.ts';
import { buildPacks, readPacks } from './core-app/packs.ts';
import { buildPipeline } from './core-app/pipeline.ts';
import { buildProviders } from './core-app/providers.ts';
import { buildAgent, buildOutbox, buildUsage } from './core-app/services.ts';
import { buildShutdown } from './core-app/shutdown.ts';
import { buildLogging, buildStores } from './core-app/stores.ts';
import { buildTitles } from './core-app/titles.ts';
import { resolveDefaultPack } from './routing/default-pack.ts';
import { loadModelCatalog } from './usage/catalog-file.ts';

export type { CoreOptions } from './core-app/options.ts';

/**
 * Everything satchel is apart from the platforms it talks to: logging, the stores, the
 * packs, the providers, the agent, the turn pipeline and the scheduler (an edge of its own),
 * wired to the edges it is given, built in that order by the builders in core-app/.
 * Replies, button answers, topics and streaming go to the edge whose platform the
 * conversation is on. The application (app.ts, chat-app.ts) drives the edges' ingresses:
 * `ready`, `start`, and `stop`, which shuts it all down.
 */
export function createCore(
  config: CoreConfig,
  factories: readonly EdgeFactory[],
  options: CoreOptions = {},
) {
  const clock = options.clock ?? systemClock;
  const catalog = options.catalog ?? loadModelCatalog(config);
  const read = readPacks(config);
  const { secrets, redact, log } = buildLogging(config, factories, read, options);
  // Before anything is opened: a DEFAULT_PACK naming no loaded pack stops the start.
  const defaultPack = resolveDefaultPack(
    config.defaultPack,
    read.settings.packs.map((p) => p.name),
    log,
  );
  const stores = buildStores(config, factories, { log, clock, redact });
  const base = { config, clock, log, stores };
  const outbox = buildOutbox(base, redact, options);
  const providers = buildProviders(config, catalog, log, options.chatModel);
  const packs = buildPacks(config, read, {
    log,
    clock,
    secrets,
    db: stores.store.db,
    mcpHub: options.mcpHub,
  });
  const usage = buildUsage(base, catalog, redact);
  const turning = buildAgent(base, { providers, packs, usage, defaultPack }, options);
  const parts = { ...base, outbox, providers, packs, usage, turning };
  const pipeline = buildPipeline(parts, options);
  const jobs = buildJobs({ ...parts, pipeline });
  const { edges } = stores;
  edges.set(jobs.edge.platform, jobs.edge);
  const routing = {
    packs: () => packs.packs.list(),
    activePack: (address: Address) => turning.router.activePack(address),
    transcribes: () => providers.transcriber !== undefined,
    defaultPack: () => defaultPack,
  };
  const titles = buildTitles({
    providers,
    activePack: routing.activePack,
    usage,
    sessions: stores.sessions,
    router: turning.router,
    packModel: (pack) => packs.packs.get(pack)?.manifest.model,
    events: turning.events,
    clock,
    log,
  });
  const ingresses = openIngresses(
    edges,
    ingressPort(pipeline, routing, outbox, options.onFatal, titles, edges),
  );
  const stop = buildShutdown({
    clock,
    log,
    graceMs: options.shutdownGraceMs,
    edges: ingresses,
    scheduler: jobs.scheduler,
    pipeline,
    outbox,
    mcpHub: packs.mcpHub,
    packs: packs.packs,
    store: {
      close: () => {
        try {
          stores.idleJobs.flush();
          usage.ledger.flush();
        } finally {
          stores.store.close();
        }
      },
    },
  });
  return {
    clock,
    log,
    store: stores.store,
    catalog,
    edges,
    /** What each edge says of itself: its name in texts, what its turns count as. */
    profileOf: stores.profileOf,
    outbox,
    packs: packs.packs,
    router: turning.router,
    events: turning.events,
    model: providers.model.info,
    pipeline,
    scheduler: jobs.scheduler,
    /** Each edge's ingress, and their lifecycle (see Ingress in core/edge.ts). */
    ingresses,
    stop,
  };
}

export type Core = ReturnType<typeof createCore>;
