import type { CoreConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { createJobEdge } from '../scheduler/job-edge.ts';
import type { Packs } from './packs.ts';
import type { Pipeline } from './pipeline.ts';
import type { Turning } from './services.ts';
import type { Stores } from './stores.ts';

export interface JobParts {
  config: CoreConfig;
  clock: Clock;
  log: Logger;
  stores: Stores;
  packs: Packs;
  turning: Turning;
  pipeline: Pipeline;
}

/**
 * The scheduler, as the job edge (scheduler/job-edge.ts): it runs the jobs of the
 * conversations this process's channels serve, and a conversation bound to a pack gets the
 * pack's manifest jobs.
 */
export function buildJobs(parts: JobParts) {
  const { config, clock, log, stores, packs, turning, pipeline } = parts;
  const jobs = createJobEdge({
    jobs: stores.jobs,
    events: turning.events,
    accept: (event) => pipeline.accept(event),
    chatType: (to) => stores.edges.get(to.platform)?.chatType?.(to) ?? 'private',
    schedule: {
      jobs: stores.jobs,
      clock,
      log,
      timezone: config.timezone,
      routes: () =>
        turning.router.boundConversations().filter((r) => stores.channelOf(r.platform ?? '')),
      manifestJobs: (pack) => packs.packs.get(pack)?.manifest.cron ?? [],
      onRan: (ran) => turning.events.emit({ type: 'job_run', ...ran }),
      sweepIdle: (now) => stores.idleJobs.sweep(now),
    },
  });
  // After its turn's model call has gone out: the sync reads every conversation.
  turning.events.on('conversation_bound', () => jobs.scheduler.syncSoon());
  return jobs;
}
