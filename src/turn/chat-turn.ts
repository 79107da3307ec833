import { randomUUID } from 'node:crypto';
import type { AgentEvent, TurnInput, TurnResult } from '../agent/agent.ts';
import { memoryNotesOf } from '../agent/memory-flush.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import { background } from '../core/background.ts';
import type { Change } from '../core/changes.ts';
import type { ToolRunner, UserInput } from '../core/ports.ts';
import { answerParts } from '../outbound/compose.ts';
import { createStream, type Stream, type StreamMode } from '../outbound/stream.ts';
import { keepTyping } from '../outbound/typing.ts';
import { packPromptSections } from '../packs/prompt.ts';
import { OWNER } from '../people/people.ts';
import type { Route } from '../routing/router.ts';
import type { TrustGate } from '../tools/trust/gate.ts';
import { badgeOf } from './badge.ts';
import { noteInputs, sourceKey, turnInputs, withPinnedSkill } from './inputs.ts';
import { enterChat } from './job-chat.ts';
import { receiptLine } from './receipt.ts';
import type { Replies } from './replies.ts';
import type { Conversing, Delivery, Runtime, Turns } from './services.ts';
import { steeredInputs } from './steering.ts';
import { acceptsImages, type ChatTurn, type Routed, scopeOf } from './turn-parts.ts';
import { toolsFor } from './turn-tools.ts';
import { heldBackNoted } from './turn-trust.ts';

/** A scheduled run's answer that means "nothing to say this time": nothing is sent. */
export const SILENT = '[SILENT]';

/**
 * What a turn uses, all steps together. Each step below names the part it touches (its
 * `…Services` type); the caller passes this whole object and the type checker holds each step
 * to its part.
 */
export interface ChatTurnServices {
  runtime: Runtime;
  conversing: Pick<Conversing, 'router' | 'packs' | 'people'>;
  delivery: Pick<
    Delivery,
    'outbox' | 'streamMode' | 'ackReaction' | 'react' | 'channelName' | 'turnSource'
  >;
  turns: Turns;
  replies: Replies;
}

/** What the user sees while the turn runs: typing and the streamed reply. */
interface Live {
  mode: StreamMode;
  stream: Stream;
  stopTyping(): void;
}

/**
 * One model turn for a conversation, in named steps: route (pack, session, model) → tools
 * (the pack's, bound to this turn) → inputs (media normalized) → run (the agent, streaming
 * as it writes) → commit (the answer stored, its delivery written and the turn's origins
 * acknowledged in one transaction, then sent) → the answer spoken (voice-reply.ts).
 */
export async function runChatTurn(
  services: ChatTurnServices,
  turn: ChatTurn,
): Promise<{ silent: boolean }> {
  const routed = route(services, turn);
  const live = startLive(services, turn, routed);
  const unreact = acknowledgeSeen(services, turn);
  // The turn's home stays open while it runs (the registry closes idle homes past a limit).
  const { packs } = services.conversing;
  const held = routed.pack ? packs.hold(routed.pack.name, routed.home) : undefined;
  try {
    const { tools, gate } = await toolsFor(services, turn, routed);
    const given = turn.inputs ?? (await inputsOf(services, turn, routed));
    const inputs = [
      ...noteInputs(turn.notes ?? []),
      ...(turn.job ? given : withPinnedSkill(given, turn.pinned)),
    ];
    const run = await runAgent(services, turn, routed, { tools, gate, inputs, live });
    const answered = heldBackNoted(run, gate, SILENT);
    const changes = [...inputs.flatMap((i) => i.changes ?? []), ...(tools?.changes?.() ?? [])];
    const taint = gate?.sources() ?? [];
    const { silent, after } = await commit(services, turn, routed, live, {
      ...answered,
      changes,
      taint,
    });
    // After the text: the answer spoken, where the chat asks for it (a job's run never is).
    // It is not waited for: the conversation's next turn never waits on speech (SPEC §18).
    if (!turn.job)
      services.turns.voice.follow({
        address: routed.address,
        answer: answered.result.answer,
        heardVoice: turn.events.some((e) => e.kind === 'voice'),
        scope: scopeOf(turn, routed),
        packCaps: routed.packCaps,
        signal: turn.signal,
        after,
      });
    return { silent };
  } finally {
    live.stopTyping();
    await live.stream.settle();
    unreact();
    held?.release();
  }
}

interface SeenServices {
  delivery: Pick<Delivery, 'ackReaction' | 'react'>;
  runtime: Pick<Runtime, 'log' | 'clock'>;
}

/**
 * ACK_REACTION on the user's (last) message while its turn runs; the returned function
 * removes it. Neither is waited for, and a failure only skips it (SPEC §12).
 */
function acknowledgeSeen(services: SeenServices, turn: ChatTurn): () => void {
  const { ackReaction, react } = services.delivery;
  const seen = turn.events.findLast((e) => e.messageId !== undefined);
  if (turn.job || !ackReaction || seen?.messageId === undefined) return () => undefined;
  const { address, messageId } = seen;
  const { log, clock } = services.runtime;
  let set = false;
  // From the next tick, like typing: the turn's model request leaves first.
  const timer = clock.setTimeout(() => {
    set = true;
    background(log, 'reaction_failed', react(address, messageId, ackReaction));
  }, 0);
  return () => {
    clock.clearTimeout(timer);
    if (set) background(log, 'reaction_failed', react(address, messageId, undefined));
  };
}

interface RouteServices {
  conversing: Pick<Conversing, 'packs' | 'router' | 'people'>;
  runtime: Pick<Runtime, 'clock'>;
  turns: Pick<Turns, 'models'>;
}

/**
 * Step 1: whose turn and home it is, the session, the pack (its storage in that home), the
 * model that answers (see model-choice.ts), the caps.
 */
function route(services: RouteServices, turn: ChatTurn): Routed {
  const { packs, router } = services.conversing;
  const first = turn.events[0]!;
  const pack = packs.get(turn.pack);
  const pick = router.modelPick(first.address);
  const who = belonging(services, turn);
  // First: a person's turn binds its pack here, which the badge reads.
  const session = sessionOf(services, turn);
  return {
    turnId: randomUUID(),
    started: services.runtime.clock.now(),
    address: first.address,
    route: session,
    pack,
    ...who,
    storage: pack ? packs.storage(pack.name, who.home) : undefined,
    // A job's own model answers its runs, before the chat's pick and the pack's model.
    model: (turn.job?.model
      ? services.turns.models.answering(turn.job.model, undefined)
      : services.turns.models.answering(pack?.manifest.model, pick)
    ).model,
    packCaps: {
      dailyTokens: pack?.manifest.quota?.daily_tokens,
      dailyUsd: pack?.manifest.quota?.daily_usd,
    },
    badge: badgeOf(services, first.address, first.chatType, pack),
    usageFooter: router.usageFooter(first.address),
  };
}

/**
 * Who the turn is for and whose home it uses (SPEC §19): a message's, its first sender's; a
 * job's run, the home of its chat and its creator (a manifest job: the person whose private
 * chat it is). Person caps never apply to the owner, nor to a job's run in a group.
 */
function belonging(
  services: Pick<RouteServices, 'conversing'>,
  turn: ChatTurn,
): Pick<Routed, 'home' | 'person' | 'capPerson'> {
  const { people } = services.conversing;
  const first = turn.events[0]!;
  if (!turn.job) {
    const { person, home } = people.belonging(first);
    return { person, home, capPerson: person === OWNER ? null : person };
  }
  const home = people.homeOf(first.address);
  const person =
    turn.job.person ??
    (home.kind === 'person' ? home.person : home.kind === 'owner' ? OWNER : null);
  const capped = person !== null && person !== OWNER && first.chatType === 'private';
  return { person, home, capPerson: capped ? person : null };
}

/**
 * The session the turn runs in: a job's own; for a skill command, a reply to a job's message
 * or an action's hand-over of a pack other than the bound one, that pack's session (the
 * conversation stays with its pack); else the route's.
 */
function sessionOf(services: { conversing: Pick<Conversing, 'router'> }, turn: ChatTurn): Route {
  const { router } = services.conversing;
  const { address } = turn.events[0]!;
  if (turn.job) return { pack: turn.pack, session: turn.job.session };
  const bound = turn.pinned || turn.visit ? router.boundPack(address) : undefined;
  return bound !== undefined && bound !== turn.pack
    ? router.visit(address, turn.pack)
    : router.resolve(address, turn.pack);
}

interface LiveServices {
  delivery: Pick<Delivery, 'outbox' | 'streamMode'>;
  runtime: Pick<Runtime, 'clock'>;
}

/** Typing and the stream start before anything slow; a job shows neither. */
function startLive(services: LiveServices, turn: ChatTurn, routed: Routed): Live {
  const { outbox, streamMode } = services.delivery;
  const { clock } = services.runtime;
  const to = routed.address;
  const mode: StreamMode = turn.job ? 'none' : streamMode(to, turn.events[0]!.chatType);
  return {
    mode,
    // Keyed by the turn's first message, so a replay after a crash takes over what it showed.
    stream: createStream({
      outbox,
      clock,
      to,
      mode,
      ...(turn.job ? {} : { key: sourceKey(turn.events[0]!) }),
    }),
    stopTyping: turn.job ? () => undefined : keepTyping(outbox, clock, to),
  };
}

/** Step 3: what the user sent, normalized (downloads, transcripts, photos, documents). */
function inputsOf(
  services: { turns: Pick<Turns, 'media' | 'fallbackAcceptsImages'> },
  turn: ChatTurn,
  routed: Routed,
) {
  return turnInputs(turn.events, services.turns.media, {
    scope: scopeOf(turn, routed),
    packCaps: routed.packCaps,
    acceptsImages: acceptsImages(services, routed),
    filesDir: routed.storage?.filesDir,
    signal: turn.signal,
  });
}

/** Step 4: the agent's ReAct loop; its text streams to the chat as it is written. */
async function runAgent(
  services: { turns: Pick<Turns, 'agent' | 'web'>; runtime: Pick<Runtime, 'log'> },
  turn: ChatTurn,
  routed: Routed,
  with_: {
    tools: ToolRunner | undefined;
    gate: TrustGate | undefined;
    inputs: UserInput[];
    live: Live;
  },
): Promise<{ input: TurnInput; result: TurnResult }> {
  const { pack, storage, address } = routed;
  const { stream } = with_.live;
  const off = { search: services.turns.web.search.provider === undefined };
  const sections =
    pack && storage ? packPromptSections(pack, storage, turn.job && turn.pinned, off) : [];
  const input: TurnInput = {
    memory: storage ? memoryNotesOf(storage) : undefined,
    ...(with_.gate && { mayKeep: with_.gate.mayKeep }),
    session: routed.route.session,
    turnId: routed.turnId,
    pack: turn.pack,
    jobId: turn.job?.id,
    packCaps: routed.packCaps,
    person: routed.person,
    capPerson: routed.capPerson,
    channel: address.platform,
    tools: with_.tools,
    model: routed.model,
    chatId: address.chatId,
    threadId: address.threadId,
    system: buildSystemPrompt({ sections }),
    packPrompt: sections.join('\n\n'),
    inputs: with_.inputs,
    ...(turn.steer && { steer: steeredInputs(turn.steer, services.runtime.log, routed) }),
    signal: turn.signal,
    onEvent: (event: AgentEvent) => {
      if (event.type === 'text') stream.push(event.delta);
      else if (event.type === 'restart') stream.reset();
    },
  };
  return { input, result: await services.turns.agent.run(input) };
}

interface CommitServices {
  delivery: Pick<Delivery, 'outbox' | 'turnSource'>;
  turns: Pick<Turns, 'agent' | 'events' | 'usageFooter' | 'trust'>;
  runtime: Pick<Runtime, 'transaction' | 'clock' | 'timezone'>;
  conversing: Pick<Conversing, 'router'>;
  replies: Pick<Replies, 'acknowledge'>;
}

/**
 * Step 5: the answer stored, its rows written and the origins acknowledged in one
 * transaction, then sent; `turn_completed` once it is committed. A job's delivered answer
 * also enters its pack's chat session there (job-chat.ts), tainted as its run was. `after`
 * is the outbox's newest row once the answer was written: a message in the chat past it
 * came later.
 */
async function commit(
  services: CommitServices,
  turn: ChatTurn,
  routed: Routed,
  live: Live,
  {
    input,
    result,
    changes,
    taint,
  }: { input: TurnInput; result: TurnResult; changes: Change[]; taint: readonly string[] },
): Promise<{ silent: boolean; after: number }> {
  const { outbox } = services.delivery;
  const { agent, events } = services.turns;
  live.stopTyping();
  // A draft on its way leaves no message to edit: the final rows are written while it lands,
  // and sent after it, so no draft shows after the reply. Edits must land first: `finish`
  // edits the messages they showed.
  const landed = live.stream.settle();
  if (live.mode !== 'draft') await landed;
  const silent = turn.job !== undefined && result.answer.trim() === SILENT;
  const footer = receiptOf(services, changes) + footerOf(services, routed);
  const ids = services.runtime.transaction(() => {
    agent.storeAnswer(input, result.answer);
    const resumed = turn.resumed ? `\n\n_${turn.resumed}_` : '';
    const parts = answerParts(
      outbox.renderFor(routed.address),
      result.answer,
      resumed + footer + routed.badge,
    );
    const rows = silent ? [] : live.stream.finish(parts);
    if (turn.job && !silent) {
      const { address, turnId } = routed;
      enterChat(services, { address, pack: turn.pack, turnId, answer: result.answer, rows, taint });
    }
    const taken = [...(turn.steer?.absorbed() ?? []), ...(turn.notes ?? []).map((n) => n.event)];
    services.replies.acknowledge([...turn.events, ...taken].map((e) => e.origin));
    return rows;
  });
  // Read before anything else can run: nothing was written between the transaction and here.
  const after = outbox.newestRow();
  await landed;
  await outbox.dispatch(ids);
  events.emit({
    type: 'turn_completed',
    turnId: routed.turnId,
    address: routed.address,
    pack: routed.route.pack,
    sessionId: routed.route.session.id,
    source: turn.job ? 'schedule' : services.delivery.turnSource(routed.address),
    modelCalls: result.modelCalls,
    timedOut: result.timedOut,
    ms: services.runtime.clock.now() - routed.started,
  });
  return { silent, after };
}

/**
 * The receipt (SPEC §18): one line saying what the turn's tools and inputs changed, right
 * under the answer (it is about the answer), above the usage footer and the pack badge.
 */
function receiptOf(services: Pick<CommitServices, 'runtime'>, changes: readonly Change[]): string {
  const { timezone, clock } = services.runtime;
  const line = receiptLine(changes, timezone, clock.now());
  return line ? `\n\n${line}` : '';
}

/** `/usage footer on` here: the turn's usage and today's, above the pack badge. */
function footerOf(
  services: Pick<CommitServices, 'conversing' | 'turns' | 'runtime'>,
  routed: Routed,
): string {
  if (!routed.usageFooter) return '';
  return `\n\n${services.turns.usageFooter(routed.turnId, services.runtime.clock.now())}`;
}
