import type { CoreConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import type { EdgeFactory } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import { createRedactor } from '../core/redact.ts';
import { createPairing } from '../inbound/pairing.ts';
import { createLogger } from '../logging/logger.ts';
import { createPeople } from '../people/people.ts';
import { providerSecrets } from '../providers/registry.ts';
import { createIdleJobs } from '../scheduler/idle.ts';
import { openCoreStore, transactionOf } from '../store/client.ts';
import { createJobRepo } from '../store/job-repo.ts';
import { createOutboxRepo } from '../store/outbox-repo.ts';
import { createPairingRepo } from '../store/pairing-repo.ts';
import { createPeopleRepo } from '../store/people-repo.ts';
import { createPersonActivity } from '../store/person-activity.ts';
import { createSessionRepo } from '../store/session-repo.ts';
import { createWebConversationRepo } from '../store/web-conversation-repo.ts';
import { connectEdges, storeInboxes } from './edges.ts';
import type { CoreOptions } from './options.ts';
import type { ReadPacks } from './packs.ts';

/**
 * Every secret satchel knows (each edge's, the providers' keys, the dashboard's token, the
 * search keys, the packs' secret settings), the redactor that hides them in stored text,
 * and the logger that hides them in logs.
 */
export function buildLogging(
  config: CoreConfig,
  factories: readonly EdgeFactory[],
  read: ReadPacks,
  options: Pick<CoreOptions, 'logDestination'>,
) {
  const secrets = [
    ...factories.flatMap((f) => f.secrets ?? []),
    ...providerSecrets(config.providers),
    config.dashboard.token,
    ...[
      config.web.search?.braveApiKey,
      config.web.search?.tavilyApiKey,
      // STT_API_KEY (the provider's own key is among providerSecrets already).
      config.stt?.apiKey,
    ].filter((key): key is string => key !== undefined),
    ...read.settings.secrets,
  ];
  const log: Logger = createLogger({
    level: config.logLevel,
    secrets,
    format: config.logFormat,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  return { secrets, redact: createRedactor(secrets), log };
}

export type Logging = ReturnType<typeof buildLogging>;

/**
 * The core database, the edges connected to it (an edge's inbox lives there), and the
 * repositories the turns write through.
 */
export function buildStores(
  config: CoreConfig,
  factories: readonly EdgeFactory[],
  deps: { log: Logger; clock: Clock; redact: Logging['redact'] },
) {
  const store = openCoreStore(config.home);
  const transaction = transactionOf(store.db);
  const pairing = createPairing({ repo: createPairingRepo(store.db), ...deps });
  const edges = connectEdges(factories, {
    ...deps,
    inboxes: storeInboxes(store.db),
    conversations: createWebConversationRepo(store.db, deps.redact),
    pairing,
  });
  const channels = [...edges.values()].flatMap((edge) => (edge.channel ? [edge.channel] : []));
  const people = createPeople({
    repo: createPeopleRepo(store.db),
    clock: deps.clock,
    gated: (platform) => edges.get(platform)?.gate !== undefined,
    isPaired: (platform, senderId) => pairing.isPaired(platform, senderId),
  });
  // The owner is recorded once, on each edge that names one (SPEC §19): the first id at the
  // first start; from then on reordering an allowlist moves no one's home.
  for (const edge of edges.values())
    if (edge.owner !== undefined) people.recordOwner(edge.platform, edge.owner);
  // The scheduler runs only the jobs of this process's channels: another process (the
  // terminal chat) serves the others.
  const jobs = createJobRepo(store.db, {
    timezone: config.timezone,
    platforms: channels.map((c) => c.platform),
    maxJobs: config.maxJobs,
  });
  const idleJobs = createIdleJobs({
    activity: createPersonActivity(store.db, { platforms: channels.map((c) => c.platform) }),
    jobs,
    log: deps.log,
    days: config.jobIdleDays,
  });
  return {
    store,
    transaction,
    edges,
    channels,
    /** Jobs paused while nobody writes in their chat (SPEC §8). */
    idleJobs,
    /** The channel of a platform this process serves. */
    channelOf: (platform: string) => edges.get(platform)?.channel,
    /** What each edge says of itself: how texts name it, what its turns count as. */
    profileOf: (platform: string) => {
      const factory = factories.find((f) => f.platform === platform);
      return { name: factory?.name ?? platform, source: factory?.source ?? 'chat' };
    },
    jobs,
    pairing,
    /** Everyone and their homes (SPEC §19). */
    people,
    outboxRepo: createOutboxRepo(store.db),
    sessions: createSessionRepo(store.db, deps.redact),
  };
}

export type Stores = ReturnType<typeof buildStores>;
