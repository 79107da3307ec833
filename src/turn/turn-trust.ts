import type { TurnInput, TurnResult } from '../agent/agent.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { createChatApprover } from '../tools/trust/approval.ts';
import { createTrustGate, type TrustGate } from '../tools/trust/gate.ts';
import type { Delivery, Runtime, Turns } from './services.ts';

/**
 * The turn's trust gate (SPEC §17): the owner is asked in this chat, with buttons; a
 * scheduled run has nobody to ask, so what needs approval is held back.
 */
export function trustGate(
  services: {
    turns: Pick<Turns, 'trust' | 'asks'>;
    delivery: Pick<Delivery, 'outbox'>;
    runtime: Pick<Runtime, 'clock'>;
  },
  turn: { job: boolean; pack: string; label: string; address: Address },
  log: Logger,
): TrustGate {
  const { trust, asks } = services.turns;
  const { address } = turn;
  return createTrustGate({
    policy: trust.policy,
    pack: { name: turn.pack, label: turn.label },
    approver: turn.job
      ? undefined
      : createChatApprover({
          outbox: services.delivery.outbox,
          asks,
          address,
          owner: trust.owner(address),
          timeoutMs: trust.timeoutMs,
        }),
    grants: trust.grants,
    now: () => services.runtime.clock.now(),
    log,
  });
}

/** A scheduled run's answer says which calls it held back, and why (even a `[SILENT]` one). */
export function heldBackNoted(
  run: { input: TurnInput; result: TurnResult },
  gate: TrustGate | undefined,
  silent: string,
): { input: TurnInput; result: TurnResult } {
  const held = gate?.heldBack() ?? [];
  if (held.length === 0) return run;
  const note = `Held back: ${held.join(', ')}. This scheduled run read outside content, and these calls need your approval, which a scheduled run cannot ask for. Run it in the chat to approve them.`;
  const answer = run.result.answer.trim() === silent ? note : `${run.result.answer}\n\n${note}`;
  return { ...run, result: { ...run.result, answer } };
}
