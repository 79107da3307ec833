import type { Verdict } from '../core/edge.ts';
import type { InboundEvent } from '../core/types.ts';
import { createActionPresses } from './action-press.ts';
import { createChatChanges } from './chat-changes.ts';
import { runChatTurn } from './chat-turn.ts';
import { createCommands } from './commands.ts';
import { createConversations } from './conversations.ts';
import { createDispatch } from './dispatch.ts';
import { tellPaired } from './pair-command.ts';
import { createReplies } from './replies.ts';
import { createRunEvents } from './run-events.ts';
import type { Conversing, Delivery, Reports, Runtime, Turns } from './services.ts';
import type { QueueMode } from './steering.ts';
import type { ChatTurn } from './turn-parts.ts';
import { trustGate } from './turn-trust.ts';

export interface PipelineServices {
  runtime: Runtime;
  conversing: Conversing;
  delivery: Delivery;
  turns: Turns;
  reports: Reports;
  /** The event's edge's gate (its allowlist); an edge without one lets all pass. */
  gate(event: InboundEvent): Verdict;
  /** Some edge lets strangers ask in (pairing, /pair): none does with the web chat alone. */
  strangers(): boolean;
  batchWindowMs: number;
  /** QUEUE_MODE: what a message sent while a turn runs does where /queue was not used. */
  queueMode: QueueMode;
}

/**
 * The turn pipeline (SPEC §2): one entry, `accept(event)`, for every edge — a chat
 * platform's message, a due job, a line typed in a terminal. Dispatch gates and classifies,
 * the conversations batch and serialize, and each turn runs in its conversation's lane; the
 * reply, its delivery and the acknowledgement of the event's origin are committed together.
 * Each stage is given the services it uses.
 */
export function createPipeline(services: PipelineServices) {
  const { runtime, conversing, delivery, turns, reports } = services;
  const { clock, log, transaction } = runtime;
  const { router, packs } = conversing;
  const replies = createReplies({
    transaction,
    clock,
    outbox: delivery.outbox,
    acks: delivery.acks,
  });
  const commands = createCommands({
    runtime,
    conversing,
    reports,
    agent: turns.agent,
    grants: turns.trust.grants,
    topics: delivery.topics,
    strangers: services.strangers,
    waiting: (address) => conversations.waiting(address),
    queueMode: services.queueMode,
    pair: {
      pairing: turns.pairing,
      owner: turns.trust.owner,
      tell: tellPaired(delivery.outbox, log),
    },
    voice: turns.voice,
    gateFor: (address, pack, session) =>
      trustGate(
        { turns, delivery, runtime, conversing },
        {
          job: undefined,
          pack: pack.name,
          label: pack.displayName,
          address,
          session,
          home: conversing.people.homeOf(address),
        },
        log.child({ pack: pack.name }),
      ),
  });
  const chatTurn = (turn: ChatTurn) =>
    runChatTurn({ runtime, conversing, delivery, turns, replies }, turn);
  const { people } = conversing;
  const actions = createActionPresses({
    log,
    clock,
    timezone: runtime.timezone,
    transaction,
    packs,
    keyboards: turns.keyboards,
    outbox: delivery.outbox,
    replies,
    // As approvals are asked (turn-trust.ts): a person's home is theirs; any other, the owner's.
    presser: (home, to) =>
      home.kind === 'person'
        ? { id: people.senderOn(home.person, to.platform) ?? '', name: people.nameOf(home.person) }
        : { id: turns.trust.owner(to), name: 'the owner' },
    homeOf: (event) => people.belonging(event).home,
    // As a skill command's turn does (chat-turn.ts sessionOf): the pack is bound here, so its
    // jobs run here (SPEC §8); another pack bound already stays the active one.
    enter: (address, pack) => {
      const bound = router.boundPack(address);
      if (bound !== undefined && bound !== pack) router.visit(address, pack);
      else router.resolve(address, pack);
    },
    chatTurn,
  });
  const { runEvents, runJob } = createRunEvents({
    log,
    router,
    packs,
    outbox: delivery.outbox,
    replies,
    commands,
    actions,
    conversations: () => conversations,
    transaction,
    answered: turns.answered,
    chatTurn,
    jobStarted: (job) =>
      turns.events.emit({ type: 'job_started', jobId: job.id, dueAt: job.dueAt }),
    jobSession: (job, address, pack) =>
      conversing.sessions.jobSession(job.sessionKey, pack, address, clock.now()),
    personWrote: (to) => turns.idleJobs?.personWrote(to, clock.now()),
  });
  const conversations = createConversations({
    clock,
    log,
    batchWindowMs: services.batchWindowMs,
    queueMode: (address) => router.queueMode(address) ?? services.queueMode,
    stored: turns.stored,
    replies,
    run: runEvents,
    runJob,
    jobDone: ({ job }, outcome) =>
      turns.events.emit({ type: 'job_finished', jobId: job.id, dueAt: job.dueAt, outcome }),
  });
  const dispatch = createDispatch({
    log,
    gate: services.gate,
    conversations,
    replies,
    asks: turns.asks,
    actions,
    router,
    packs,
    answerButton: delivery.answerButton,
    groupReply: conversing.groupReply,
    botMessage: delivery.botMessage,
    chatChange: createChatChanges({
      log,
      clock,
      moves: conversing.moves,
      jobs: turns.jobs,
      replies,
    }),
  });

  return {
    accept: dispatch.accept,
    full: conversations.full,
    menu: () => commands.menu(),
    close: () => conversations.close(),
    /** Resolves when the running turns have finished and no voice note is being spoken. */
    idle: async (): Promise<void> => {
      await Promise.all([conversations.idle(), turns.voice.idle()]);
    },
    abortAll: (): void => {
      conversations.abortAll();
      turns.voice.abortAll();
    },
  };
}

export type Pipeline = ReturnType<typeof createPipeline>;
