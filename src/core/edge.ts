import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Check } from './check.ts';
import type { Clock } from './clock.ts';
import type { EdgeConversations } from './edge-conversations.ts';
import type { Inboxes } from './inbox.ts';
import type { Acknowledge } from './origin.ts';
import type { PairingGate } from './pairing.ts';
import type { Channel, FileSource, Logger, OutboundText } from './ports.ts';
import type { Address, ChatType, InboundEvent } from './types.ts';

/**
 * Whether an event may enter: yes, or no with an optional reply to its sender and an optional
 * word to the edge's owner (pairing is full), in the chat the edge names.
 */
export type Verdict =
  | 'allow'
  | { deny: true; reply?: OutboundText; tellOwner?: { to: Address; message: OutboundText } };

/**
 * An edge as the application lists it (src/edges.ts), made from its own settings: what it
 * is called, its secrets and its checks, which need no core, then how it connects once the
 * core's logger and stores exist. Everything of a platform is here; the core names none.
 */
export interface EdgeFactory {
  /** The platform of its origins and addresses (`tg`, `web`), as the core stores them. */
  readonly platform: string;
  /** How texts the model and the owner read name it ("Telegram", "the web chat"). */
  readonly name: string;
  /**
   * What its turns count as in the ledger's `recent_turns.source`: `web` for the web chat,
   * `chat` (the default) for any other channel. A job's turn is `schedule` wherever it runs.
   */
  readonly source?: 'chat' | 'web';
  /** The platform's secrets (its token), kept out of logs and stored text. */
  readonly secrets?: readonly (string | undefined)[];
  /** Builds the edge; `inboxes` are there for a durable ingress. */
  connect(deps: EdgeDeps): Edge;
  /** Its lines of `satchel doctor` and `doctor --security`, without connecting (EdgeChecks). */
  readonly doctor?: EdgeChecks;
  /**
   * A channel that reaches its people while satchel is not running here (`satchel pair`
   * tells a person they are in through it); none when it cannot (the web chat).
   */
  reach?(log: Logger): Channel;
}

/**
 * An edge as src/edges.ts lists it: the variables it reads (known to the `.env` checks), and
 * how it is made from the configuration, whose `env` it reads its variables from — throwing a
 * ConfigError that names each bad one.
 */
export interface EdgeModule {
  /** Its platform, and what its turns count as (see EdgeFactory), known without making it. */
  readonly platform: string;
  readonly source?: 'chat' | 'web';
  readonly variables: readonly string[];
  create(config: EdgeConfig): EdgeFactory;
}

/** What an edge is made from: the core's settings it needs and the environment it reads. */
export interface EdgeConfig {
  readonly home: string;
  readonly groupReply: 'mention' | 'all';
  readonly env: Readonly<Record<string, string>>;
}

export interface EdgeDeps {
  log: Logger;
  clock: Clock;
  inboxes: Inboxes;
  /** The conversations an edge makes itself (the web chat's), kept in the core database. */
  conversations: EdgeConversations;
  /** Paired users and strangers' pairing codes (SPEC §18), for an edge that gates strangers. */
  pairing: PairingGate;
}

/**
 * An edge's lines of `satchel doctor`: `local` ones read only the configuration and come right
 * after it (an allowlist); `remote` ones ask the platform (a token accepted), each within
 * `timeoutMs`, beside the providers' checks; `security` ones are its part of
 * `doctor --security` (a webhook's secret, an allowlist nobody owns).
 */
export interface EdgeChecks {
  local?(): readonly Check[];
  remote?(timeoutMs: number): Promise<readonly Check[]>;
  security?(): readonly Check[];
}

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
  /**
   * Its way in, built once the pipeline exists (`port`); none for an edge whose input the
   * application drives itself.
   */
  ingress?(port: IngressPort): Ingress;
}

/** A turn a model answered, as an edge hears of it (IngressPort.answered). */
export interface AnsweredTurn {
  address: Address;
  pack: string;
  sessionId: string;
  turnId: string;
}

/** The models a picker offers, and which answers a conversation now (IngressPort.models). */
export interface OfferedModels {
  offered: { ref: string; price?: { input: number; output: number } }[];
  /** `provider:model` of the model answering now; `picked`: chosen for this conversation. */
  current: string;
  picked: boolean;
}

/** What the core gives an edge's ingress. */
export interface IngressPort {
  /** The pipeline's entry: takes one event; never throws. */
  accept(event: InboundEvent): void;
  /** Whether the conversation would refuse one more event as busy (five wait already). */
  full(address: Address): boolean;
  /** The commands the core answers, for a platform's command menu. */
  menu(): { command: string; description: string }[];
  /** The packs installed, as a first screen or a picker offers them. */
  packs(): readonly { name: string; displayName: string; description: string }[];
  /** The pack that answers in `address` now, if one does. */
  activePack(address: Address): string | undefined;
  /** Speech to text is set up (STT_PROVIDER): an edge offers voice input only then. */
  transcribes(): boolean;
  /** The pack a conversation with no binding starts with (DEFAULT_PACK), if any. */
  defaultPack?(): string | undefined;
  /**
   * Calls `listener` after each turn a model answered in one of this edge's conversations
   * (a person's turn, not a job's run).
   */
  answered(listener: (turn: AnsweredTurn) => void): void;
  /**
   * A title for `turn`'s conversation written by the model from its first exchange: one
   * short call, booked and gated like any; undefined when there is nothing to name yet.
   */
  title(turn: AnsweredTurn, signal: AbortSignal): Promise<string | undefined>;
  /**
   * The chat models the configured providers offer (SPEC §14, as `/model` lists them: priced
   * first, `price` in USD per million tokens when known), and the one answering at `address`.
   */
  models(address: Address, signal?: AbortSignal): Promise<OfferedModels>;
  /** The platform answers again after an outage: what its outbox held back goes out now. */
  reachable(): void;
  /** The ingress stopped for good (a token refused): the application ends. */
  fatal(error: unknown): void;
}

/**
 * An edge's ingress, driven by the application in this order: `ready` for every edge (before
 * anything listens: what an earlier run left unanswered is handed on, a missing setting is
 * said), then the dashboard, then `start` for every edge in list order; on shutdown, once the
 * dashboard is down, `stop` for every edge. `/healthz` reads `health`.
 */
export interface Ingress {
  /** HTTP routes served on the dashboard's server, behind its token (the web chat's /chat). */
  readonly mounts?: readonly HttpMount[];
  ready?(): void;
  start?(): Promise<void>;
  stop?(): Promise<void>;
  health?(): EdgeHealth;
}

/** One route an HTTP mount answers. A `GET` route answers `HEAD` too. */
export interface HttpRoute {
  readonly method: 'GET' | 'POST';
  /** The exact path, or a prefix ending in `/*` (`/chat/files/*`). */
  readonly path: string;
  /** Served without the token: nothing in it is private (`/healthz`, the web app manifest). */
  readonly open?: boolean;
  /** A page a person opens (`/chat`): without the token it shows the sign-in page, not a 401 text. */
  readonly page?: boolean;
}

/** How a request's token came: a cookie (a browser: check for forged requests) or Bearer. */
export type TokenVia = 'cookie' | 'bearer';

/** Routes served after the dashboard's host, same-origin and token checks. */
export interface HttpMount {
  /**
   * Every route it answers. The router answers anything else itself (404, 405), so a new
   * endpoint works only once listed here, and the tests that walk the routes then cover it.
   */
  readonly routes: readonly HttpRoute[];
  handle(request: IncomingMessage, response: ServerResponse, via: TokenVia): void;
}

/**
 * An ingress's section of `/healthz`, under its platform: whether its input can come in
 * (`ok`), and the fields it reports (Telegram's mode, polling and ages).
 */
export interface EdgeHealth {
  ok: boolean;
  fields: Readonly<Record<string, string | number | boolean | null>>;
}
