import type { Clock } from '../core/clock.ts';
import type { Address } from '../core/types.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { Pack } from '../packs/loader.ts';
import type { PackStorage } from '../packs/storage.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { MessageSearch } from '../store/message-search.ts';
import type { AskRegistry } from './asks.ts';

/** What the tools of one turn may use: the active pack, its storage and this chat. */
export interface TurnToolContext {
  pack: Pack;
  storage: PackStorage;
  address: Address;
  /** Who sent the turn's (first) message; undefined when no user started the turn. */
  senderId: number | undefined;
  /**
   * The turn is a scheduled job's own run: `schedule` refuses `create` there unless the
   * pack's manifest sets `jobs_may_schedule`, so jobs cannot breed jobs.
   */
  inJobRun: boolean;
  outbox: Outbox;
  asks: AskRegistry;
  jobs: JobRepo;
  clock: Clock;
  /** SATCHEL_TIMEZONE: cron schedules are read, and times are shown, in it. */
  timezone: string;
  /** The conversation's session key (memory_search reads all its sessions). */
  sessionKey: string;
  messages: Pick<MessageSearch, 'search'>;
}
