import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import { AbortedError } from '../core/errors.ts';

const PREFIX = 'ask:';

interface Pending {
  options: string[];
  settle(answer: string | undefined): void;
}

/**
 * Questions waiting for a button press. The coordinator routes `ask:` presses here directly
 * (not through the conversation's queue, where the asking turn is running).
 */
export function createAskRegistry(clock: Clock) {
  const pending = new Map<string, Pending>();

  return {
    /** Button data for option `index` of question `id` (well under Telegram's 64 bytes). */
    data: (id: string, index: number) => `${PREFIX}${id}:${index}`,

    newId: () => randomBytes(6).toString('base64url'),

    /**
     * Waits for a press; undefined after `timeoutMs` or when cancelled. Rejects when
     * `signal` aborts, without answering anything.
     */
    wait(id: string, options: string[], timeoutMs: number, signal: AbortSignal) {
      return new Promise<string | undefined>((resolve, reject) => {
        const cleanUp = () => {
          clock.clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          pending.delete(id);
        };
        const finish = (answer: string | undefined) => {
          cleanUp();
          resolve(answer);
        };
        const onAbort = () => {
          cleanUp();
          reject(signal.reason instanceof Error ? signal.reason : new AbortedError());
        };
        const timer = clock.setTimeout(() => finish(undefined), timeoutMs);
        pending.set(id, { options, settle: finish });
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    },

    /** Ends a wait with no answer (the question never reached the user). */
    cancel(id: string): void {
      pending.get(id)?.settle(undefined);
    },

    /** Whether `data` is an answer button (handled here, whatever its state). */
    isAnswer: (data: string) => data.startsWith(PREFIX),

    /** Delivers a press; returns the chosen option, or undefined if nobody waits any more. */
    answer(data: string): string | undefined {
      const [id, index] = data.slice(PREFIX.length).split(':');
      const question = id === undefined ? undefined : pending.get(id);
      const option = question?.options[Number(index)];
      if (!question || option === undefined) return undefined;
      question.settle(option);
      return option;
    },
  };
}

export type AskRegistry = ReturnType<typeof createAskRegistry>;
