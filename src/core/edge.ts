import type { Acknowledge } from './origin.ts';
import type { Channel, FileSource, OutboundText } from './ports.ts';
import type { Address, ChatType, InboundEvent } from './types.ts';

/** Whether an event may enter: yes, or no with an optional reply to its sender. */
export type Verdict = 'allow' | { deny: true; reply?: OutboundText };

/**
 * One source of work for the core and, when it talks to people, one way back to them: the
 * Telegram bot, the terminal, the web chat, the scheduler. The core knows nothing of an
 * edge but this; an edge mints its own origins (`platform` + keys) and addresses.
 */
export interface Edge {
  /** The platform of its origins, and of the addresses its channel serves. */
  readonly platform: string;
  /** How replies reach its conversations; none for an edge that only brings work in. */
  readonly channel?: Channel;
  /** Fetches files its users send; none when they send none. */
  readonly files?: FileSource;
  /**
   * Decides before anything else whether an event from this edge may enter (an allowlist),
   * logging a refusal itself. Without it every event of the edge is the owner's own.
   */
  gate?(event: InboundEvent): Verdict;
  /**
   * Who may approve a tool call in its conversations (SPEC §17): the owner's sender id. None
   * on an edge only the owner reaches (the web chat, the terminal): anyone there may.
   */
  readonly owner?: string;
  /**
   * What kind of chat `address` is, for work that starts without a message from it (a job's
   * run): only the edge can tell from its own ids. Without it every chat is private.
   */
  chatType?(address: Address): ChatType;
  /** Settles this edge's origins in the reply's transaction; none: nothing to settle. */
  readonly acknowledge?: Acknowledge;
}
