import { randomUUID } from 'node:crypto';
import type { Agent, AgentEvent, UserInput } from '../agent/agent.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events.ts';
import type { ChatModel, Logger } from '../core/ports.ts';
import type { ChatType, InboundEvent } from '../core/types.ts';
import type { MediaInputs } from '../inbound/media.ts';
import { answerParts } from '../outbound/compose.ts';
import type { Outbox } from '../outbound/outbox.ts';
import { createStream, type StreamMode } from '../outbound/stream.ts';
import { keepTyping } from '../outbound/typing.ts';
import type { Pack, Skill } from '../packs/loader.ts';
import { packPromptSections } from '../packs/prompt.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { Route, Router } from '../routing/router.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { SessionRow } from '../store/session-repo.ts';
import type { AskRegistry } from '../tools/asks.ts';
import { createToolRunner, packTools } from '../tools/registry.ts';
import { turnInputs } from './inputs.ts';
import type { Replies } from './replies.ts';

/** A scheduled run's answer that means "nothing to say this time": nothing is sent. */
export const SILENT = '[SILENT]';

export interface ChatTurnDeps {
  clock: Clock;
  log: Logger;
  agent: Agent;
  router: Router;
  outbox: Outbox;
  replies: Replies;
  transaction: <T>(fn: () => T) => T;
  events: EventBus;
  packs: PackRegistry;
  asks: AskRegistry;
  jobs: JobRepo;
  timezone: string;
  /** How a reply streams in a chat of this type (from what the channel can do). */
  streamMode(chatType: ChatType): StreamMode;
  media: MediaInputs;
  /** The model that answers a pack's turns (its manifest `model`, else the default). */
  modelFor(pack: Pack | undefined): ChatModel;
  /** Whether the fallback model (if any) takes images too. */
  fallbackAcceptsImages: boolean;
}

export interface ChatTurn {
  events: InboundEvent[];
  pack: string;
  /** What the user said, one input per message; made from `events` when not given. */
  inputs?: UserInput[];
  pinned?: Skill;
  signal: AbortSignal;
  /** A scheduled run: its own session, nothing streamed, `[SILENT]` sends nothing. */
  job?: { session: SessionRow };
}

/**
 * One model turn for a conversation: the pack's prompt and tools, the streamed reply and
 * typing while it runs. The agent returns the answer; this stage stores it, writes its
 * delivery and acknowledges the turn's origins in one transaction, then sends it.
 */
export async function runChatTurn(
  deps: ChatTurnDeps,
  turn: ChatTurn,
): Promise<{ silent: boolean }> {
  const { clock, outbox, packs } = deps;
  const first = turn.events[0]!;
  const { address } = first;
  const turnId = randomUUID();
  const started = clock.now();
  const route = routeOf(deps, turn);
  const pack = packs.get(turn.pack);
  const storage = pack ? packs.storage(pack.name) : undefined;
  const model = deps.modelFor(pack);
  const packCaps = {
    dailyTokens: pack?.manifest.quota?.daily_tokens,
    dailyUsd: pack?.manifest.quota?.daily_usd,
  };
  // With several packs, a private reply says which pack gave it.
  const badge =
    pack && first.chatType === 'private' && packs.list().length >= 2
      ? `\n\n— ${pack.displayName}`
      : '';
  const mode: StreamMode = turn.job ? 'none' : deps.streamMode(first.chatType);
  const stopTyping = turn.job ? () => undefined : keepTyping(outbox, clock, address);
  const stream = createStream({ outbox, clock, to: address, mode });
  const tools =
    pack && storage
      ? createToolRunner(
          packTools({
            pack,
            storage,
            address,
            senderId: turn.job ? undefined : first.senderId,
            inJobRun: turn.job !== undefined,
            outbox,
            asks: deps.asks,
            jobs: deps.jobs,
            clock,
            timezone: deps.timezone,
          }),
          deps.log.child({ turnId, pack: pack.name }),
        )
      : undefined;
  try {
    const scope = {
      pack: turn.pack,
      chatId: address.chatId,
      threadId: address.threadId ?? null,
      sessionId: route.session.id,
      turnId,
    };
    const inputs =
      turn.inputs ??
      (await turnInputs(turn.events, deps.media, {
        scope,
        packCaps,
        acceptsImages: model.info.acceptsImages && deps.fallbackAcceptsImages,
        filesDir: storage?.filesDir,
        signal: turn.signal,
      }));
    const input = {
      session: route.session,
      turnId,
      pack: turn.pack,
      packCaps,
      tools,
      model,
      chatId: address.chatId,
      threadId: address.threadId,
      system: buildSystemPrompt({
        now: clock.now(),
        timezone: deps.timezone,
        sections: pack && storage ? packPromptSections(pack, storage, turn.pinned) : [],
      }),
      inputs,
      signal: turn.signal,
      onEvent: (event: AgentEvent) => {
        if (event.type === 'text') stream.push(event.delta);
        else if (event.type === 'restart') stream.reset();
      },
    };
    const result = await deps.agent.run(input);
    stopTyping();
    // A draft on its way leaves no message to edit: the final rows are written while it lands,
    // and sent after it, so no draft shows after the reply. Edits must land first: `finish`
    // edits the messages they showed.
    const landed = stream.settle();
    if (mode !== 'draft') await landed;
    const silent = turn.job !== undefined && result.answer.trim() === SILENT;
    const ids = deps.transaction(() => {
      deps.agent.storeAnswer(input, result.answer);
      const rows = silent ? [] : stream.finish(answerParts(result.answer, badge));
      deps.replies.acknowledge(turn.events.map((e) => e.origin));
      return rows;
    });
    await landed;
    await outbox.dispatch(ids);
    deps.events.emit({
      type: 'turn_completed',
      turnId,
      address,
      pack: route.pack,
      sessionId: route.session.id,
      source: turn.job ? 'schedule' : 'chat',
      modelCalls: result.modelCalls,
      timedOut: result.timedOut,
      ms: clock.now() - started,
    });
    return { silent };
  } finally {
    stopTyping();
    await stream.settle();
  }
}

/**
 * The session the turn runs in: a job's own; for a skill command of a pack other than the
 * bound one, that pack's session (the conversation stays with its pack); else the route's.
 */
function routeOf(deps: ChatTurnDeps, turn: ChatTurn): Route {
  const { address } = turn.events[0]!;
  if (turn.job) return { pack: turn.pack, session: turn.job.session };
  const bound = turn.pinned ? deps.router.boundPack(address) : undefined;
  return bound !== undefined && bound !== turn.pack
    ? deps.router.visit(address, turn.pack)
    : deps.router.resolve(address, turn.pack);
}
