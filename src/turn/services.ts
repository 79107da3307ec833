import type { Agent } from '../agent/agent.ts';
import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events.ts';
import type { Acknowledge } from '../core/origin.ts';
import type { Logger } from '../core/ports.ts';
import type { ApprovalPolicy } from '../core/trust.ts';
import type { Address, ChatType } from '../core/types.ts';
import type { MediaInputs } from '../inbound/media.ts';
import type { Pairing } from '../inbound/pairing.ts';
import type { McpHub, McpServerConfig } from '../mcp/types.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { StreamMode } from '../outbound/stream.ts';
import type { ActionKeyboards } from '../packs/action-keyboards.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { People } from '../people/people.ts';
import type { ModelChoice } from '../providers/model-choice.ts';
import type { Router } from '../routing/router.ts';
import type { IdleJobs } from '../scheduler/idle.ts';
import type { ChatMoves } from '../store/chat-moves.ts';
import type { GrantRepo } from '../store/grant-repo.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { MessageSearch } from '../store/message-search.ts';
import type { SessionRepo } from '../store/session-repo.ts';
import type { AskRegistry } from '../tools/asks.ts';
import type { ToolServices } from '../tools/context.ts';
import type { Calendar } from '../usage/calendar.ts';
import type { UsageFooter } from '../usage/footer.ts';
import type { Caps } from '../usage/quota.ts';
import type { UsageSums } from '../usage/sums.ts';
import type { UsageTotals } from '../usage/totals.ts';
import type { VoiceReplies } from './voice-reply.ts';

/**
 * The services the pipeline's stages use, built once at the root (core-app.ts). Each stage
 * takes the ones it touches, so its signature says what it may do.
 */

/** Time, logs, and the transaction every stage commits in. */
export interface Runtime {
  clock: Clock;
  log: Logger;
  transaction: <T>(fn: () => T) => T;
  /** SATCHEL_TIMEZONE: the calendar day, cron schedules and times shown are read in it. */
  timezone: string;
}

/** Which pack and session answer a conversation. */
export interface Conversing {
  router: Router;
  packs: PackRegistry;
  sessions: Pick<SessionRepo, 'jobSession'>;
  /** A group moved to a new chat id (its conversations go along). */
  moves: ChatMoves;
  /** GROUP_REPLY: in groups outside pack topics, `mention` answers only addressed messages. */
  groupReply: 'mention' | 'all';
  /** Who each turn is for and whose home it uses (SPEC §19). */
  people: People;
}

/** Everything that reaches a chat, and the settling of what came from it. */
export interface Delivery {
  outbox: Outbox;
  /** How each edge settles its events' origins (in the reply's transaction), by platform. */
  acks(platform: string): Acknowledge | undefined;
  /** How a reply streams in a chat of this type on its channel (from what it can do). */
  streamMode(address: Address, chatType: ChatType): StreamMode;
  /** Answers a pressed button (stops its spinner), with a short notice when given. */
  answerButton(to: Address, callbackId: string, notice?: string): Promise<void>;
  /** How texts the model reads name `to`'s channel ("Telegram", "the web chat"): its edge's name. */
  channelName(to: Address): string;
  /** What a turn in `to` counts as in the ledger's recent turns: its edge's (`web`, `chat`). */
  turnSource(to: Address): 'chat' | 'web';
  /** ACK_REACTION: shown on the user's message while its turn runs ('' = none). */
  ackReaction: string;
  /** Sets or removes the bot's reaction on a message (best effort, never rejects). */
  react(to: Address, messageId: string, emoji: string | undefined): Promise<void>;
  /** What the bot said in a message it sent (its plain text and topic), if the outbox knows. */
  botMessage(
    to: Address,
    messageId: string,
  ): { text: string; threadId: string | undefined } | undefined;
  /** How to create a forum topic in `to`'s chat; undefined where its channel has no topics. */
  topics(to: Address): ((name: string) => Promise<{ threadId: string }>) | undefined;
}

/** What a model turn runs on: the agent, the inputs it takes in, its tools' services. */
export interface Turns {
  agent: Agent;
  media: MediaInputs;
  /** Which model answers: the chat's /model pick, else the pack's `model`, else the default. */
  models: ModelChoice;
  /** The line `/usage footer on` puts under an answer (the turn's usage and today's). */
  usageFooter: UsageFooter;
  /** Voice replies: an answer also spoken, where /voice or VOICE_REPLY asks (SPEC §18). */
  voice: VoiceReplies;
  /** Whether the fallback model (if any) takes images too. */
  fallbackAcceptsImages: boolean;
  asks: AskRegistry;
  /** The keyboards of pack actions: what each button runs (SPEC §3). */
  keyboards: ActionKeyboards;
  jobs: JobRepo;
  /** When a person last wrote, and the jobs paused while nobody did (SPEC §8). */
  idleJobs?: Pick<IdleJobs, 'personWrote'>;
  /** memory_search's index of past messages. */
  messages: Pick<MessageSearch, 'search'>;
  events: EventBus;
  /** web_fetch's guard and limits, web_search's provider (SPEC §13). */
  web: ToolServices['web'];
  /** The MCP hub, and the servers each pack declares (SPEC §13): none for most packs. */
  mcp: { hub: McpHub; servers(pack: string): readonly McpServerConfig[] };
  /** Whether every one of these messages is stored and was answered (store/answered.ts). */
  answered(sourceKeys: readonly string[]): boolean;
  /** Whether every one of these messages is stored already (store/answered.ts). */
  stored(sourceKeys: readonly string[]): boolean;
  /** When calls wait for the owner, and the standing approvals (SPEC §17). */
  trust: {
    policy: ApprovalPolicy;
    timeoutMs: number;
    grants: GrantRepo;
    /** Who may approve in this conversation; undefined where only the owner is present. */
    owner(to: Address): string | undefined;
    /** Where a session's taint is kept until /new, and its history (the URLs it saw). */
    sessions: Pick<SessionRepo, 'taint' | 'history'>;
  };
  /** Pairing codes and paired users, for the owner's /pair (SPEC §18). */
  pairing: Pick<Pairing, 'approve' | 'remove' | 'listing'>;
}

/** What the usage and status commands report. */
export interface Reports {
  totals: UsageTotals;
  calendar: Calendar;
  caps: Caps;
  /** The models /model offers and which one answers (for /status). */
  models: ModelChoice;
  /** What each person cost today and in all, and PERSON_DAILY_USD (for /people, SPEC §19). */
  people: {
    costs(now: number): Map<string, { today: UsageSums; all: UsageSums }>;
    defaultCapUsd: number;
  };
  /** This chat's scheduled jobs (for /jobs and /status). */
  schedule?: {
    /** With `active` (the conversation's pack), a job of another pack names its pack. */
    describe(address: Address, active?: string): string;
    next(address: Address): number | undefined;
    /** `/jobs on|off ID`: what to say back. */
    turn(address: Address, id: string, on: boolean): string;
  };
}
