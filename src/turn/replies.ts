import type { Clock } from '../core/clock.ts';
import { type Acknowledge, acknowledge, type Origin } from '../core/origin.ts';
import type { Address } from '../core/types.ts';
import type { OutboundText } from '../outbound/compose.ts';
import type { DispatchOptions, Outbox } from '../outbound/outboxes.ts';

export interface RepliesDeps {
  transaction: <T>(fn: () => T) => T;
  outbox: Pick<Outbox, 'write' | 'dispatch'>;
  /** How each edge settles its origins, by platform. */
  acks(platform: string): Acknowledge | undefined;
  clock: Clock;
}

/**
 * Short answers that end an event without a model turn (a command's reply, "busy", a
 * failure): the reply is written and the origins acknowledged in one transaction, then sent.
 */
export function createReplies(deps: RepliesDeps) {
  const { outbox, clock } = deps;

  return {
    /** Writes `message` (if any) and settles `origins` together, then sends it. */
    async reply(
      to: Address,
      message: OutboundText | undefined,
      origins: readonly Origin[],
      options: DispatchOptions = {},
    ): Promise<void> {
      const ids = deps.transaction(() => {
        const written = message ? outbox.write(to, message) : [];
        acknowledge(deps.acks, origins, clock.now());
        return written;
      });
      await outbox.dispatch(ids, options);
    },

    /**
     * A failed turn's error line: written and `origins` settled as `reply` does, the edges
     * told it is a failure (the web chat keeps it, with a Retry).
     */
    async fail(to: Address, message: OutboundText, origins: readonly Origin[]): Promise<void> {
      const ids = deps.transaction(() => {
        const written = outbox.write(to, message);
        acknowledge(deps.acks, origins, clock.now(), message.text);
        return written;
      });
      await outbox.dispatch(ids);
    },

    /** Settles origins that need no reply. */
    settle(origins: readonly Origin[]): void {
      deps.transaction(() => acknowledge(deps.acks, origins, clock.now()));
    },

    acknowledge: (origins: readonly Origin[]) => acknowledge(deps.acks, origins, clock.now()),
  };
}

export type Replies = ReturnType<typeof createReplies>;
