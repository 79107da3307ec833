import { randomUUID } from 'node:crypto';
import type { Agent, UserInput } from '../agent/agent.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { Clock } from '../core/clock.ts';
import type { ChannelCapabilities, Logger } from '../core/ports.ts';
import { addressKey, type InboundEvent } from '../core/types.ts';
import type { MediaInputs } from '../inbound/media.ts';
import { visibleMarkdown } from '../outbound/compose.ts';
import type { Outbox } from '../outbound/outbox.ts';
import { createStream, type StreamMode } from '../outbound/stream.ts';
import { keepTyping } from '../outbound/typing.ts';
import type { Skill } from '../packs/loader.ts';
import { packPromptSections } from '../packs/prompt.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { Router } from '../routing/router.ts';
import type { InboxRepo } from '../store/inbox-repo.ts';
import type { JobRepo } from '../store/job-repo.ts';
import type { AskRegistry } from '../tools/asks.ts';
import { createToolRunner, packTools } from '../tools/registry.ts';
import { turnInputs } from './inputs.ts';

export interface ChatTurnDeps {
  clock: Clock;
  log: Logger;
  agent: Agent;
  router: Router;
  outbox: Outbox;
  inbox: InboxRepo;
  packs: PackRegistry;
  asks: AskRegistry;
  jobs: JobRepo;
  timezone: string;
  channelCapabilities: ChannelCapabilities;
  media: MediaInputs;
  /** The chat model takes images inline (else photos are described by the vision model). */
  acceptsImages: boolean;
}

export interface ChatTurn {
  events: InboundEvent[];
  pack: string;
  /** What the user said, one input per message; made from `events` when not given. */
  inputs?: UserInput[];
  pinned?: Skill;
  signal: AbortSignal;
}

/**
 * One model turn for a conversation: the pack's prompt, the streamed reply, typing while it
 * runs, and the final rows written in the same transaction that marks the updates done.
 */
export async function runChatTurn(deps: ChatTurnDeps, turn: ChatTurn): Promise<void> {
  const { clock, outbox, packs } = deps;
  const first = turn.events[0]!;
  const { address } = first;
  const updateIds = turn.events.flatMap((e) => e.updateIds);
  const turnId = randomUUID();
  const started = clock.now();
  // A skill command of a pack other than the bound one runs in that pack's session but
  // leaves the conversation with its pack.
  const bound = turn.pinned ? deps.router.boundPack(address) : undefined;
  const route =
    bound !== undefined && bound !== turn.pack
      ? deps.router.visit(address, turn.pack)
      : deps.router.resolve(address, turn.pack);
  const pack = packs.get(turn.pack);
  const storage = pack ? packs.storage(pack.name) : undefined;
  const sections = pack && storage ? packPromptSections(pack, storage, turn.pinned) : [];
  // With several packs, a private reply says which pack gave it.
  const badge =
    pack && first.chatType === 'private' && packs.list().length >= 2
      ? `\n\n— ${pack.displayName}`
      : '';

  const stopTyping = keepTyping(outbox, clock, address);
  const stream = createStream({ outbox, clock, to: address, mode: streamMode(deps, first) });
  const tools =
    pack && storage
      ? createToolRunner(
          packTools({
            pack,
            storage,
            address,
            senderId: first.senderId,
            outbox,
            asks: deps.asks,
            jobs: deps.jobs,
            clock,
          }),
          deps.log.child({ turnId, pack: pack.name }),
        )
      : undefined;
  try {
    const packCaps = {
      dailyTokens: pack?.manifest.quota?.daily_tokens,
      dailyUsd: pack?.manifest.quota?.daily_usd,
    };
    const inputs =
      turn.inputs ??
      (await turnInputs(turn.events, deps.media, {
        scope: {
          pack: turn.pack,
          chatId: address.chatId,
          threadId: address.threadId ?? null,
          sessionId: route.session.id,
          turnId,
        },
        packCaps,
        acceptsImages: deps.acceptsImages,
        filesDir: storage?.filesDir,
        signal: turn.signal,
      }));
    const result = await deps.agent.run(
      {
        session: route.session,
        turnId,
        pack: turn.pack,
        packCaps,
        tools,
        chatId: address.chatId,
        threadId: address.threadId,
        system: buildSystemPrompt({ now: clock.now(), timezone: deps.timezone, sections }),
        inputs,
        signal: turn.signal,
        onText: stream.push,
        onRestart: stream.reset,
        beforeFinish: stream.settle,
      },
      (answer) => {
        const ids = stream.finish(visibleMarkdown(answer) + badge);
        deps.inbox.markDone(updateIds, clock.now());
        return ids;
      },
    );
    stopTyping();
    await outbox.dispatch(result.delivered);
    deps.log.info(
      {
        event: 'turn_completed',
        turnId,
        address: addressKey(address),
        sessionId: route.session.id,
        pack: route.pack,
        modelCalls: result.modelCalls,
        ms: clock.now() - started,
      },
      'turn completed',
    );
  } finally {
    stopTyping();
    await stream.settle();
  }
}

function streamMode(deps: ChatTurnDeps, event: InboundEvent): StreamMode {
  const can = deps.channelCapabilities;
  if (event.chatType === 'private' && can.drafts) return 'draft';
  return can.edits ? 'edit' : 'none';
}
