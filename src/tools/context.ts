import type { Clock } from '../core/clock.ts';
import type { Address } from '../core/types.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { ActionKeyboards } from '../packs/action-keyboards.ts';
import type { Pack } from '../packs/loader.ts';
import type { PackStorage } from '../packs/storage.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { MessageSearch } from '../store/message-search.ts';
import type { AskRegistry } from './asks.ts';
import type { WebFetchDeps } from './web-fetch.ts';
import type { SearchTurn, WebSearchDeps } from './web-search.ts';

/** Which turn the tools serve: the active pack, its storage, this chat and who spoke. */
export interface ToolTurn {
  pack: Pack;
  storage: PackStorage;
  address: Address;
  /** How texts the model reads name this chat's channel ("Telegram", "the web chat"). */
  channelName: string;
  /** Who sent the turn's (first) message; undefined when no user started the turn. */
  senderId: string | undefined;
  /** How that sender is called, when the channel says ("this question is for …"). */
  senderName?: string | undefined;
  /** Who the turn is for (`people.id`, SPEC §19): the jobs it creates are theirs. */
  person?: string | null | undefined;
  /**
   * The turn is a scheduled job's own run: `schedule` refuses `create` there unless the
   * pack's manifest sets `jobs_may_schedule`, so jobs cannot breed jobs.
   */
  inJobRun: boolean;
  /** Who this turn's paid tool calls (web_search) are booked for, and the caps they pass. */
  usage: SearchTurn;
  /** The conversation's session key (memory_search reads all its sessions). */
  sessionKey: string;
  /**
   * The untrusted sources that tainted the session so far (SPEC §17): a job created or
   * changed now remembers them, and its runs start tainted. Empty while the session is clean.
   */
  taint(): readonly string[];
}

/** The services the tools use, built once at the root and shared by every turn. */
export interface ToolServices {
  outbox: Outbox;
  asks: AskRegistry;
  /** Where `send_message` keeps the buttons of pack actions it shows (SPEC §3). */
  keyboards: ActionKeyboards;
  jobs: JobRepo;
  clock: Clock;
  /** SATCHEL_TIMEZONE: cron schedules are read, and times are shown, in it. */
  timezone: string;
  /** web_fetch and web_search (SPEC §13). */
  web: { fetch: WebFetchDeps; search: WebSearchDeps };
  messages: Pick<MessageSearch, 'search'>;
}

/**
 * What the tools of one turn may use, all together: `packTools` takes it, and each tool's
 * factory picks the fields it touches.
 */
export type TurnToolContext = ToolTurn & ToolServices;
