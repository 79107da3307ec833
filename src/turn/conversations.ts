import { background } from '../core/background.ts';
import type { Clock } from '../core/clock.ts';
import { AbortedError, STOPPED, StopRequested } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent, type JobOutcome } from '../core/types.ts';
import { createBatcher } from '../inbound/batcher.ts';
import { plain } from '../outbound/compose.ts';
import { createActors } from './actors.ts';
import { type Note, sourceKey } from './inputs.ts';
import type { Replies } from './replies.ts';
import { createSteering, type QueueMode, type SteerBox } from './steering.ts';

export const BUSY =
  'I am still working on your earlier messages, so I did not take this one. Please send it again in a moment.';
/** Turns that may wait behind the running one in a conversation. */
const MAX_WAITING = 5;

export interface ConversationsDeps {
  clock: Clock;
  log: Logger;
  batchWindowMs: number;
  replies: Pick<Replies, 'reply' | 'settle'>;
  /** QUEUE_MODE, or the conversation's /queue (SPEC §18). */
  queueMode(address: Address): QueueMode;
  /**
   * Whether every one of these messages is stored already (store/answered.ts): a replay of
   * messages a crashed turn took in, which is never refused as busy.
   */
  stored(sourceKeys: readonly string[]): boolean;
  /** Runs one turn's events in the conversation's lane; `steer` holds what joins it. */
  run(events: InboundEvent[], signal: AbortSignal, steer: SteerBox): Promise<void>;
  /** Runs a job's run in the conversation's lane. */
  runJob(event: JobEvent, signal: AbortSignal): Promise<JobOutcome>;
  /** The pipeline is done with a job's run (`interrupted`: shut down before or during it). */
  jobDone(event: JobEvent, outcome: JobOutcome): void;
}

type JobEvent = Extract<InboundEvent, { kind: 'job' }>;

const FILE_KINDS: ReadonlySet<InboundEvent['kind']> = new Set([
  'voice',
  'photo',
  'album',
  'document',
]);
const carriesFile = (event: InboundEvent) => FILE_KINDS.has(event.kind);

/**
 * The conversations: texts gather in the batcher, then each conversation's turns run one
 * after another in its own lane (at most five wait; beyond that a text or command is
 * answered "busy", while files always wait their turn).
 * Messages that wait for a pack to be picked are parked here. A job's run waits in its
 * conversation's lane too, but is never refused as busy: it was claimed, and is owed a run.
 */
export function createConversations(deps: ConversationsDeps) {
  const { log, replies } = deps;
  const actors = createActors({ maxWaiting: MAX_WAITING });
  const batcher = createBatcher({ windowMs: deps.batchWindowMs, clock: deps.clock, emit: submit });
  const parked = new Map<string, InboundEvent[]>();
  /** Notes (reactions) waiting for a conversation's next turn, with their texts. */
  const notes = new Map<string, Note[]>();
  const steering = createSteering({ mode: deps.queueMode });
  let closed = false;

  function submit(events: InboundEvent[]): void {
    const first = events[0];
    if (!first) return;
    if (first.kind === 'job') {
      runJob(first);
      return;
    }
    const key = addressKey(first.address);
    // Even the failure reply can fail (the database is gone at shutdown): log, never throw.
    const turn = (signal: AbortSignal) => {
      const steer = steering.open(key, first.senderId);
      return deps
        .run(events, signal, steer)
        .catch((error: unknown) =>
          log.error({ event: 'turn_unhandled', address: key, err: error }, 'turn failed twice'),
        )
        .finally(() => release(key, steering.close(key, steer)));
    };
    // Files are never refused as "busy" (SPEC §2 step 8): they wait their turn, their
    // updates pending in the durable inbox meanwhile. Nor are messages replayed after a crash
    // that its turn had taken in and stored: the replayed turn answers them, and their own
    // turn only finds that and settles them (a crash leaves at most one turn's worth).
    if (events.some(carriesFile) || (full(first.address) && storedBefore(events))) {
      background(log, 'turn_unhandled', actors.run(key, turn));
      return;
    }
    const outcome = actors.submit(key, turn);
    if (outcome === 'busy') {
      log.warn({ event: 'turn_rejected_busy', address: key }, 'conversation queue full');
      const origins = events.map((e) => e.origin);
      background(log, 'reply_failed', replies.reply(first.address, plain(BUSY), origins));
    }
  }

  /** Whether a text or command sent to `address` now would be refused as busy. */
  function full(address: Address): boolean {
    return actors.waiting(addressKey(address)) >= MAX_WAITING;
  }

  /** Messages an earlier run stored (a crashed turn took them in): not new prompts. */
  function storedBefore(events: InboundEvent[]): boolean {
    if (!deps.stored(events.map(sourceKey))) return false;
    log.debug({ event: 'turn_replay_waits', messages: events.length }, 'stored before; waits');
    return true;
  }

  /**
   * Messages held for a turn that did not take them in wait for the next turn. At shutdown
   * they stay pending in the inbox and are replayed on the next start.
   */
  function release(key: string, held: InboundEvent[]): void {
    if (closed || held.length === 0) return;
    log.debug({ event: 'steer_released', address: key, messages: held.length }, 'next turn');
    for (const event of held) batcher.push(event);
  }

  /**
   * A text from the person whose turn runs joins it (queue mode `steer`) when nothing else
   * waits in the conversation; anything else goes after what the turn holds, so a message
   * never overtakes one sent before it. A text past what the turn may take in, and what the
   * turn holds and has not taken in yet, become the next turn together: from then on the
   * person's texts wait as followups do (at most five turns; past that, the busy reply).
   */
  function push(event: InboundEvent): void {
    const key = addressKey(event.address);
    const offered =
      actors.waiting(key) === 0 && !batcher.holds(key) ? steering.offer(event) : undefined;
    if (offered === 'held') {
      log.debug({ event: 'steer_held', address: key }, 'held for the running turn');
      return;
    }
    if (offered === 'full') {
      log.info({ event: 'steer_full', address: key }, 'the running turn is full; next turn');
      submit([...steering.takeHeld(key), event]);
      return;
    }
    for (const held of steering.takeHeld(key)) batcher.push(held);
    batcher.push(event);
  }

  function runJob(event: JobEvent): void {
    const run = actors.run(addressKey(event.address), (signal) => deps.runJob(event, signal));
    const done = run.then((outcome) => deps.jobDone(event, outcome ?? 'interrupted'));
    background(log, 'job_run_failed', done);
  }

  return {
    /**
     * An event in conversation order: texts and albums may wait in the batch window, and a
     * text may join the running turn (steering).
     */
    push,

    /** Events that go straight to the conversation's lane (after what the batcher holds). */
    submit,

    /**
     * Whether a text or command sent to `address` now would be refused as busy: as many
     * turns wait behind the running one as may. An edge that can answer its sender at once
     * (the web chat's POST) asks first instead of taking the message to refuse it.
     */
    full,

    /**
     * /stop skips the lane: it aborts the running turn, which tells the user it stopped, and
     * drops messages still gathering in the batch window or held for the turn, which have
     * not reached the model.
     */
    stop(event: InboundEvent): void {
      const key = addressKey(event.address);
      const held = [...steering.takeHeld(key), ...batcher.take(key)].map((e) => e.origin);
      const stopped = actors.abortRunning(key, new StopRequested());
      log.info({ event: 'turn_stop', address: key, stopped, dropped: held.length }, '/stop');
      const origins = [event.origin, ...held];
      if (stopped) replies.settle(origins);
      else if (held.length > 0)
        background(log, 'reply_failed', replies.reply(event.address, plain(STOPPED), origins));
      else submit([event]);
    },

    /** Keeps messages until a pack is picked; true when the first ones (ask the user). */
    park(events: InboundEvent[]): boolean {
      const key = addressKey(events[0]!.address);
      const waiting = parked.get(key);
      parked.set(key, [...(waiting ?? []), ...events]);
      return waiting === undefined;
    },

    /**
     * Keeps a note for the conversation's next turn; it starts none. Its event stays pending
     * until that turn commits (a restart replays it and it waits again).
     */
    note(event: InboundEvent, text: string): void {
      const key = addressKey(event.address);
      notes.set(key, [...(notes.get(key) ?? []), { event, text }]);
    },

    /** Takes the notes waiting in a conversation. */
    takeNotes(address: Address): Note[] {
      const key = addressKey(address);
      const waiting = notes.get(key) ?? [];
      notes.delete(key);
      return waiting;
    },

    /** Takes the messages parked in a conversation, if any. */
    unpark(address: Address): InboundEvent[] | undefined {
      const key = addressKey(address);
      const waiting = parked.get(key);
      parked.delete(key);
      return waiting;
    },

    /** Turns waiting behind the running one. */
    waiting: (address: Address) => actors.waiting(addressKey(address)),

    /**
     * Starts no more turns (shutdown): messages in the batch window and turns not yet
     * started stay pending and run on the next start; running turns go on.
     */
    close(): void {
      closed = true;
      batcher.close();
      actors.close();
    },

    /** Resolves when the running turns have finished. */
    idle: () => actors.idle(),

    /** Aborts running turns; their events stay pending for the next start. */
    abortAll: () => actors.abortAll(new AbortedError('shutdown')),
  };
}

export type Conversations = ReturnType<typeof createConversations>;
