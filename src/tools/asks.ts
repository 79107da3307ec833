import { randomBytes } from 'node:crypto';
import { encodeButton } from '../core/button-data.ts';
import type { Clock } from '../core/clock.ts';
import { AbortedError } from '../core/errors.ts';
import { type Address, addressKey } from '../core/types.ts';

/** What the presser is told when nobody waits for the answer any more. */
export const EXPIRED = 'This question has expired.';
/** What the presser is told when the question was answered already (a second tap). */
export const ALREADY_ANSWERED = 'This question has already been answered.';
/** What the presser is told when the question was asked elsewhere or of someone else. */
export const NOT_FOR_YOU = 'This question is not for you.';
/** What another person pressing where the question was asked is told, when the asked one has a name. */
export const questionIsFor = (name: string) => `This question is for ${name}.`;

/** Who a question was put to: the chat (and forum topic) and, when known, the user. */
export interface Asked {
  address: Address;
  /** The sender of the turn's message; undefined when no user started the turn. */
  userId: string | undefined;
  /** How that user is called, when known. */
  name?: string | undefined;
  /** What anyone else pressing where it was asked is told, instead of whom it is for. */
  othersHear?: string;
}

/** Where a press came from. */
export interface Press {
  address: Address;
  userId: string;
}

interface Pending {
  options: string[];
  to: Asked;
  settle(answer: string | undefined): void;
}

/**
 * Questions waiting for a button press. Presses of `ask` buttons come here directly (not
 * through the conversation's queue, where the asking turn is running).
 */
export function createAskRegistry(clock: Clock) {
  const pending = new Map<string, Pending>();
  // Recently answered questions, so a second tap hears "already answered", not "expired".
  // Bounded: only the latest matter (the buttons are removed once the answer is shown).
  const answered = new Set<string>();
  const remember = (id: string) => {
    answered.add(id);
    if (answered.size > MAX_ANSWERED) answered.delete(answered.values().next().value as string);
  };

  return {
    /** Button data for option `index` of question `id` (well under Telegram's 64 bytes). */
    data: (id: string, index: number) => encodeButton({ type: 'ask', question: id, option: index }),

    newId: () => randomBytes(6).toString('base64url'),

    /**
     * Waits for a press from `to`; undefined after `timeoutMs` or when cancelled. Rejects
     * when `signal` aborts, without answering anything.
     */
    wait(id: string, options: string[], to: Asked, timeoutMs: number, signal: AbortSignal) {
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
        pending.set(id, { options, to, settle: finish });
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    },

    /** Ends a wait with no answer (the question never reached the user). */
    cancel(id: string): void {
      pending.get(id)?.settle(undefined);
    },

    /**
     * Delivers a press. It answers only in the chat and topic where the question was asked,
     * and only when pressed by the user it was asked of; any other press leaves the question
     * waiting. Returns the notice for the presser, or undefined when the press answered.
     */
    answer(press: { question: string; option: number }, from: Press): string | undefined {
      const question = pending.get(press.question);
      const option = question?.options[press.option];
      if (!question || option === undefined)
        return answered.has(press.question) ? ALREADY_ANSWERED : EXPIRED;
      if (!isAsked(question.to, from)) return refusal(question.to, from);
      remember(press.question);
      question.settle(option);
      return undefined;
    },
  };
}

const MAX_ANSWERED = 256;

/** Someone else where it was asked hears whom it is for (SPEC §12); elsewhere, just "not for you". */
function refusal(to: Asked, from: Press): string {
  const here = addressKey(to.address) === addressKey(from.address);
  if (here && to.othersHear) return to.othersHear;
  return here && to.name ? questionIsFor(to.name) : NOT_FOR_YOU;
}

function isAsked(to: Asked, from: Press): boolean {
  if (addressKey(to.address) !== addressKey(from.address)) return false;
  return to.userId === undefined || to.userId === from.userId;
}

export type AskRegistry = ReturnType<typeof createAskRegistry>;
