import type { Logger, UserInput } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent } from '../core/types.ts';
import { textInputs } from './inputs.ts';

/** QUEUE_MODE and /queue (SPEC §18): what a message sent while a turn runs does. */
export type QueueMode = 'steer' | 'followup';

/** The most messages one turn takes in by steering (SPEC §18). */
export const MAX_STEERED = 20;
/** The most bytes (UTF-8) of steered texts one turn takes in (SPEC §18). */
export const MAX_STEERED_BYTES = 32 * 1024;

/** The running turn's side of steering. */
export interface SteerBox {
  /** The messages sent into the turn since the last take; from now on they are the turn's. */
  take(): InboundEvent[];
  /** Every message the turn took in so far: settled with the turn's answer or failure. */
  absorbed(): readonly InboundEvent[];
}

interface Box extends SteerBox {
  senderId: string;
  held: InboundEvent[];
}

/** What `offer` did with a message: held it for the turn, or found the turn full. */
export type Offered = 'held' | 'full' | undefined;

const bytesOf = (events: readonly InboundEvent[]) =>
  events.reduce((sum, e) => sum + (e.kind === 'text' ? Buffer.byteLength(e.text) : 0), 0);

/**
 * Steering (SPEC §18): while a person's turn runs in a conversation whose queue mode is
 * `steer`, their next texts are held for it instead of waiting for the next turn; the turn
 * takes them in before its next model call. What it has not taken when it ends (the final
 * answer was already on its way) goes back to wait for the next turn. Only texts of the
 * person who started the turn are held: commands, files and other people's messages keep
 * their place in the queue. A turn holds and takes in at most 20 messages and 32 KB of them;
 * past that the turn is full, and the caller makes the message wait for the next turn.
 */
export function createSteering(deps: { mode(address: Address): QueueMode }) {
  const boxes = new Map<string, Box>();

  return {
    /** A person's turn starts in conversation `key`. */
    open(key: string, senderId: string): SteerBox {
      const absorbed: InboundEvent[] = [];
      const box: Box = {
        senderId,
        held: [],
        take() {
          const taken = box.held.splice(0);
          absorbed.push(...taken);
          return taken;
        },
        absorbed: () => absorbed,
      };
      boxes.set(key, box);
      return box;
    },

    /**
     * Holds `event` for the running turn when it may join it (`held`); `full` when it may,
     * but the turn has taken in or holds as much as it may; undefined when it may not.
     */
    offer(event: InboundEvent): Offered {
      if (event.kind !== 'text') return undefined;
      const box = boxes.get(addressKey(event.address));
      if (!box || box.senderId !== event.senderId) return undefined;
      if (deps.mode(event.address) !== 'steer') return undefined;
      const taken = [...box.absorbed(), ...box.held];
      if (taken.length >= MAX_STEERED) return 'full';
      if (bytesOf(taken) + Buffer.byteLength(event.text) > MAX_STEERED_BYTES) return 'full';
      box.held.push(event);
      return 'held';
    },

    /** Takes back what the running turn holds and has not taken in yet. */
    takeHeld: (key: string): InboundEvent[] => boxes.get(key)?.held.splice(0) ?? [],

    /** The turn ended: its box goes; returns what it held and did not take in. */
    close(key: string, box: SteerBox): InboundEvent[] {
      if (boxes.get(key) !== box) return [];
      boxes.delete(key);
      return (box as Box).held.splice(0);
    },
  };
}

export type Steering = ReturnType<typeof createSteering>;

/**
 * The agent's hook (TurnInput.steer): the texts held for the turn, as user messages; each
 * take that brings any is logged as `turn_steered`.
 */
export function steeredInputs(
  box: SteerBox,
  log: Logger,
  turn: { turnId: string; address: Address },
): () => UserInput[] {
  return () => {
    const taken = box.take();
    if (taken.length === 0) return [];
    log.info(
      {
        event: 'turn_steered',
        turnId: turn.turnId,
        address: addressKey(turn.address),
        messages: taken.length,
      },
      'messages joined the running turn',
    );
    return textInputs(taken);
  };
}
