import { decodeButton } from '../core/button-data.ts';
import { MediaError, ProviderError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import {
  type Address,
  addressKey,
  type InboundEvent,
  type JobOutcome,
  type JobRun,
} from '../core/types.ts';
import { escapeMarkdown, markdown, type OutboundText, plain } from '../outbound/compose.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { PackRegistry } from '../packs/registry.ts';
import { pickerMessage } from '../routing/picker.ts';
import type { Router } from '../routing/router.ts';
import type { SessionRow } from '../store/session-repo.ts';
import { QuotaExceededError } from '../usage/quota.ts';
import type { ActionPresses } from './action-press.ts';
import type { Commands } from './commands.ts';
import type { Conversations } from './conversations.ts';
import { failureOutcome } from './failure.ts';
import { sourceKey } from './inputs.ts';
import type { Replies } from './replies.ts';
import type { SteerBox } from './steering.ts';
import type { ChatTurn } from './turn-parts.ts';

/** What the user hears when they send something satchel cannot take in. */
export const cannotTake = (what: string) =>
  `I can't watch ${what === 'video' ? 'videos' : `${what}s`} yet. Tell me in words what it shows, or send a photo or a voice message.`;

export interface RunEventsDeps {
  log: Logger;
  router: Pick<Router, 'activePack' | 'resolve' | 'claimTopic'>;
  packs: Pick<PackRegistry, 'get' | 'list'>;
  outbox: Pick<Outbox, 'send' | 'writeEdit' | 'write' | 'dispatch' | 'renderFor' | 'jobPackOf'>;
  replies: Replies;
  commands: Pick<Commands, 'run' | 'modelPressed'>;
  /** Runs a pack action's pressed button, or the action a skill command starts (SPEC §3). */
  actions: Pick<ActionPresses, 'run' | 'start'>;
  conversations: () => Pick<Conversations, 'park' | 'unpark' | 'takeNotes'>;
  transaction: <T>(fn: () => T) => T;
  /** A job's turn starts (from now on a crash counts as an attempt of that run). */
  jobStarted(job: JobRun): void;
  /** The session of a job (kind `job`), found or made. */
  jobSession(job: JobRun, address: Address, pack: string): SessionRow;
  /** Runs one model turn (see chat-turn.ts). */
  chatTurn(turn: ChatTurn): Promise<{ silent: boolean }>;
  /** Whether every one of these messages is stored and was answered after (session-repo). */
  answered(sourceKeys: readonly string[]): boolean;
  /**
   * A person wrote in `to` (scheduler/idle.ts): returns the note for the reply when that
   * resumed jobs paused for idleness.
   */
  personWrote?(to: Address): string | undefined;
}

type Callback = Extract<InboundEvent, { kind: 'callback' }>;

/**
 * Running one turn's events in their conversation's lane: a pack pick, a command, a thing
 * satchel cannot take in, or a model turn for the conversation's pack (parked until the
 * user picks one). A failure becomes the user's message (see failure.ts) and settles the
 * events, except at shutdown, when they stay pending.
 */
export function createRunEvents(deps: RunEventsDeps) {
  const { log, router, packs, replies } = deps;

  async function runEvents(
    events: InboundEvent[],
    signal: AbortSignal,
    steer?: SteerBox,
  ): Promise<void> {
    const first = events[0]!;
    const origins = events.map((e) => e.origin);
    const steering = steer ? { steer } : {};
    try {
      // Every event here is a person's (a job's run goes to runJob). A command answers first,
      // so `/jobs` still shows why its jobs were paused; the note then says they run again.
      const wrote = () => (first.senderId ? deps.personWrote?.(first.address) : undefined);
      if (first.kind === 'callback') {
        wrote();
        return await picked(first, signal);
      }
      if (first.kind === 'command') {
        const outcome = await deps.commands.run(first, signal);
        const resumed = wrote();
        if ('reply' in outcome)
          return await replies.reply(first.address, withNote(outcome.reply, resumed), origins);
        if ('action' in outcome) {
          // The action's message is the answer; a note that jobs run again follows it.
          await deps.actions.start(first, outcome.action, signal);
          if (resumed !== undefined) await deps.outbox.send(first.address, plain(resumed));
          return;
        }
        const { pack, text, pinned } = outcome.turn;
        const inputs = [{ content: text, sourceKey: sourceKey(first) }];
        await deps.chatTurn({
          events,
          signal,
          pack,
          pinned,
          inputs,
          ...steering,
          ...noted(resumed),
        });
        return;
      }
      const resumed = wrote();
      if (first.kind === 'unsupported') {
        log.info({ event: 'media_unsupported', what: first.what }, 'cannot take this in');
        const reply = withNote(plain(cannotTake(first.what)), resumed);
        return await replies.reply(first.address, reply, origins);
      }
      if (deps.answered(events.map(sourceKey))) return alreadyAnswered(events);
      router.claimTopic(first.address, first.topicName);
      const active = router.activePack(first.address, first.topicName);
      const replied = repliedJob(events, active);
      const pack = replied ?? active;
      if (!pack) return await park(events);
      const notes = deps.conversations().takeNotes(first.address);
      await deps.chatTurn({
        events,
        pack,
        signal,
        ...(replied ? { visit: true } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...noted(resumed),
        ...steering,
      });
    } catch (error) {
      const outcome = failureOutcome(error, signal);
      const address = addressKey(first.address);
      if (outcome.kind === 'shutdown') {
        log.info(
          { event: 'turn_aborted', address },
          'turn aborted; it runs again on the next start',
        );
        return;
      }
      if (outcome.kind === 'stopped') log.info({ event: 'turn_stopped', address }, 'turn stopped');
      // A provider's failure was logged as provider_error (at warn) already: expected, and
      // told to the user; a bug is an error with its stack.
      else if (error instanceof ProviderError)
        log.debug({ event: 'turn_failed', address, err: error }, 'turn failed');
      // A file satchel cannot take in (no speech-to-text key, too big): expected, and told.
      else if (error instanceof MediaError && error.cause === undefined)
        log.warn({ event: 'turn_failed', address, err: error }, 'turn failed');
      else log.error({ event: 'turn_failed', address, err: error }, 'turn failed');
      // Markdown, as the answers are: a command in it (`npx satchel doctor`) shows as code.
      // The messages the turn took in while it ran are settled with it.
      const taken = (steer?.absorbed() ?? []).map((e) => e.origin);
      const settle = outcome.kind === 'failed' ? replies.fail : replies.reply;
      await settle(first.address, markdown(outcome.reply), [...origins, ...taken]);
    }
  }

  /**
   * The pack whose job sent the message these reply to, when it is installed and not the
   * `active` one: it answers, in its own chat session here, and the active pack stays
   * (SPEC §8). The first message that replies to a job's decides.
   */
  function repliedJob(events: InboundEvent[], active: string | undefined): string | undefined {
    for (const event of events) {
      if (event.replyTo === undefined) continue;
      const pack = deps.outbox.jobPackOf(event.address, event.replyTo);
      if (pack === undefined || !packs.get(pack)) continue;
      if (pack === active) return undefined;
      log.info(
        { event: 'job_reply_routed', address: addressKey(event.address), pack, active },
        'a reply to a job message goes to its pack',
      );
      return pack;
    }
    return undefined;
  }

  /**
   * Messages a crashed turn took in while it ran (steering) are stored in its session; the
   * turn replayed after the restart answered them with its own messages. Their own replay
   * needs no answer of its own: they are settled, and nothing is sent twice.
   */
  function alreadyAnswered(events: InboundEvent[]): void {
    log.info(
      { event: 'turn_already_answered', address: addressKey(events[0]!.address) },
      'stored and answered before a restart; settled',
    );
    replies.settle(events.map((e) => e.origin));
  }

  /** No pack yet: keep the messages and ask; the pick answers them without a resend. */
  async function park(events: InboundEvent[]): Promise<void> {
    if (deps.conversations().park(events))
      await deps.outbox.send(events[0]!.address, pickerMessage(packs.list()));
  }

  /**
   * A button run in the lane: a pack action's, a `/model` pick, or a pack picked from the
   * picker (bind it, confirm, and answer what was parked).
   */
  async function picked(event: Callback, signal: AbortSignal): Promise<void> {
    const button = decodeButton(event.data);
    if (button?.type === 'action') return await deps.actions.run(event, button, signal);
    if (button?.type === 'model') return await modelPicked(event, button.ref);
    const pack = button?.type === 'pack' ? packs.get(button.pack) : undefined;
    if (!pack) {
      log.debug({ event: 'callback_ignored', data: event.data }, 'unknown button');
      replies.settle([event.origin]);
      return;
    }
    router.resolve(event.address, pack.name, 'pick');
    const waiting = deps.conversations().unpark(event.address);
    const ids = deps.transaction(() => {
      const written = event.messageId
        ? [
            ...deps.outbox
              .renderFor(event.address)
              .text(markdown(`Pack: **${escapeMarkdown(pack.displayName)}**`))
              .slice(0, 1)
              .map((part) => deps.outbox.writeEdit(event.address, event.messageId!, part)),
          ]
        : [];
      if (!waiting)
        written.push(...deps.outbox.write(event.address, plain(`Now using ${pack.displayName}.`)));
      replies.acknowledge([event.origin]);
      return written;
    });
    await deps.outbox.dispatch(ids);
    if (waiting) await runEvents(waiting, signal);
  }

  /** A `/model` button: the pick is saved and the menu becomes its confirmation. */
  async function modelPicked(event: Callback, ref: string): Promise<void> {
    const confirmation = deps.commands.modelPressed(event.address, ref);
    const ids = deps.transaction(() => {
      const render = deps.outbox.renderFor(event.address);
      const written = event.messageId
        ? render
            .text(confirmation)
            .slice(0, 1)
            .map((part) => deps.outbox.writeEdit(event.address, event.messageId!, part))
        : deps.outbox.write(event.address, confirmation);
      replies.acknowledge([event.origin]);
      return written;
    });
    await deps.outbox.dispatch(ids);
  }

  /**
   * A job's run (an event of the `job` edge), in its conversation's lane: its own session,
   * its skill pinned, the answer (unless `[SILENT]`) delivered into the owning chat or
   * topic, the run acknowledged with it. Over a cap it is refused and the chat is told; at
   * shutdown it stays claimed.
   */
  async function runJob(event: JobEvent, signal: AbortSignal): Promise<JobOutcome> {
    const { job } = event;
    const pack = packs.get(job.pack);
    if (!pack) {
      replies.settle([event.origin]);
      return 'refused';
    }
    const pinned = pack.skills.find((s) => s.name === job.skill);
    try {
      const session = deps.jobSession(job, event.address, pack.name);
      const inputs = [{ content: job.prompt, sourceKey: sourceKey(event) }];
      deps.jobStarted(job);
      const { silent } = await deps.chatTurn({
        events: [event],
        pack: pack.name,
        inputs,
        signal,
        job: { session, id: job.id, model: job.model, taint: job.taint, person: job.person },
        ...(pinned ? { pinned } : {}),
      });
      return silent ? 'silent' : 'delivered';
    } catch (error) {
      const outcome = failureOutcome(error, signal);
      if (outcome.kind === 'shutdown') return 'interrupted';
      log.warn({ event: 'job_failed', jobId: job.id, err: error }, 'job failed');
      await replies.reply(event.address, markdown(outcome.reply), [event.origin]);
      return error instanceof QuotaExceededError ? 'refused' : 'failed';
    }
  }

  return { runEvents, runJob };
}

export type JobEvent = Extract<InboundEvent, { kind: 'job' }>;

const noted = (resumed: string | undefined) => (resumed === undefined ? {} : { resumed });

/** A short reply with `note` (resumed jobs) under it. */
function withNote<T extends OutboundText | undefined>(message: T, note: string | undefined): T {
  if (!message || note === undefined) return message;
  return { ...message, text: `${message.text}\n\n${note}` };
}
