import type { Address } from '../core/types.ts';
import type { Conversing, Delivery, Runtime, Turns } from './services.ts';

export interface JobChatServices {
  conversing: Pick<Conversing, 'router'>;
  turns: Pick<Turns, 'agent' | 'trust'>;
  delivery: Pick<Delivery, 'outbox'>;
  runtime: Pick<Runtime, 'clock'>;
}

/** A job's answer as delivered into its conversation. */
export interface DeliveredJobAnswer {
  address: Address;
  pack: string;
  turnId: string;
  answer: string;
  /** The outbox rows the answer was written as. */
  rows: readonly number[];
  /** The untrusted sources the run was tainted by (its job's and its own); empty when clean. */
  taint: readonly string[];
}

/**
 * A job's delivered answer enters the conversation (SPEC §8), in the transaction that writes
 * it: it is added to its pack's chat session there as an assistant message (so the next turn
 * with that pack, and a reply to it, has it in its history), and its rows name the pack (a
 * reply to them is answered by it). The job's own session keeps its own copy. Taint follows
 * the text (SPEC §17): a tainted run taints the chat session it writes into, until /new.
 */
export function enterChat(services: JobChatServices, delivered: DeliveredJobAnswer): void {
  const { address, pack, turnId, answer, rows, taint } = delivered;
  const { session } = services.conversing.router.visit(address, pack);
  services.turns.agent.storeAnswer({ session, turnId }, answer);
  if (taint.length > 0)
    services.turns.trust.sessions.taint(session.id, taint, services.runtime.clock.now());
  services.delivery.outbox.markJob(rows, pack);
}
