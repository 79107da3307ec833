import type { Agent } from '../agent/agent.ts';
import type { Clock } from '../core/clock.ts';
import type { Verdict } from '../core/edge.ts';
import type { Acknowledge } from '../core/origin.ts';
import type { Logger, ModelInfo } from '../core/ports.ts';
import type { Address, InboundEvent } from '../core/types.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { Router } from '../routing/router.ts';
import type { SessionRepo } from '../store/session-repo.ts';
import type { AskRegistry } from '../tools/asks.ts';
import type { Calendar } from '../usage/calendar.ts';
import type { Caps } from '../usage/quota.ts';
import type { UsageTotals } from '../usage/totals.ts';
import { type ChatTurnDeps, runChatTurn } from './chat-turn.ts';
import { type CommandDeps, createCommands } from './commands.ts';
import { createConversations } from './conversations.ts';
import { createDispatch } from './dispatch.ts';
import { createReplies } from './replies.ts';
import { createRunEvents } from './run-events.ts';

export interface PipelineDeps extends Omit<ChatTurnDeps, 'replies' | 'transaction'> {
  clock: Clock;
  log: Logger;
  transaction: <T>(fn: () => T) => T;
  /** How each edge settles its events' origins (in the reply's transaction), by platform. */
  acks(platform: string): Acknowledge | undefined;
  /** The event's edge's gate. */
  gate(event: InboundEvent): Verdict;
  batchWindowMs: number;
  outbox: Outbox;
  router: Router;
  packs: PackRegistry;
  asks: AskRegistry;
  agent: Agent;
  sessions: Pick<SessionRepo, 'jobSession'>;
  /** For /usage and /status. */
  totals: UsageTotals;
  calendar: Calendar;
  caps: Caps;
  model: ModelInfo;
  /** This chat's scheduled jobs (for /jobs and /status). */
  schedule?: CommandDeps['schedule'];
  /** Channel actions some channels have: answering a button, creating a forum topic. */
  answerButton(to: Address, callbackId: string, notice?: string): Promise<void>;
  /** How to create a forum topic in `to`'s chat; undefined where its channel has no topics. */
  topics(to: Address): ((name: string) => Promise<{ threadId: number }>) | undefined;
}

/**
 * The turn pipeline (SPEC §2): one entry, `accept(event)`, for every edge — a chat
 * platform's message, a due job, a line typed in a terminal. Dispatch gates and classifies, the
 * conversations batch and serialize, and each turn runs in its conversation's lane; the
 * reply, its delivery and the acknowledgement of the event's origin are committed together.
 */
export function createPipeline(deps: PipelineDeps) {
  const replies = createReplies(deps);
  const turnDeps: ChatTurnDeps = { ...deps, replies };
  const commands = createCommands({
    ...deps,
    waiting: (address) => conversations.waiting(address),
  });
  const { runEvents, runJob } = createRunEvents({
    ...deps,
    replies,
    commands,
    conversations: () => conversations,
    chatTurn: (turn) => runChatTurn(turnDeps, turn),
    jobSession: (job, address, pack) =>
      deps.sessions.jobSession(job.sessionKey, pack, address, deps.clock.now()),
  });
  const conversations = createConversations({
    ...deps,
    replies,
    run: runEvents,
    runJob,
    jobDone: ({ job }, outcome) =>
      deps.events.emit({ type: 'job_finished', jobId: job.id, dueAt: job.dueAt, outcome }),
  });
  const dispatch = createDispatch({ ...deps, conversations, replies });

  return {
    accept: dispatch.accept,
    menu: () => commands.menu(),
    close: () => conversations.close(),
    idle: () => conversations.idle(),
    abortAll: () => conversations.abortAll(),
  };
}

export type Pipeline = ReturnType<typeof createPipeline>;
